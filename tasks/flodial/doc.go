// Package flodial is the FloDial-Easy / FloDial-Hard troubleshooting task of
// docs/arew.md §4, rebuilt as an in-process simulator after the
// troubleshooting prototype in which both information self-locking and the
// AREW fix were measured (docs/arew.md §6, "The anchor").
//
// # The task
//
// A device has one of K candidate faults (uniform prior). The troubleshooting
// flowchart is given as its answer table: Q yes/no diagnostic questions, and
// for each question the answer the user would give under each fault (YES, NO
// or UNK). Columns are drawn independently:
//
//	useless   (p = PUseless)            NO for every fault (a check that never fires)
//	narrow    (p = PNarrow)             YES for exactly one fault
//	balanced  (1 − PUseless − PNarrow)  YES for ⌊K/2⌋ faults
//
// and then each cell of an informative column becomes UNK with probability
// PUnknown: "Unknown" is a real third answer that the table shows, so it is
// evidence too. Half the questions useless is what made AS a bottleneck in
// the prototype (with informative random questions, belief tracking alone
// solved the task). Useless columns are all NO rather than all YES so that the
// spec's AS critique (+1 after YES) is directional instead of a coin flip.
//
// An episode is Rounds = 5 rounds (10 turns) of query (AS) → reply → belief
// (BT); the fifth belief is the final answer. Reward 1 if its argmax is the
// true fault and unique, else 0.
//
// Easy and Hard differ in the number of candidates and in the share of
// uninformative questions: Easy K = 6, PUseless 0.5, PNarrow 0.25
// (the prototype's measured design); Hard K = 8, PUseless 0.6, PNarrow 0.2, so
// a Hard table has on average 4.8 informative questions for 8 faults against
// Easy's 6 for 6. Both: Q = 12, PUnknown 0.1, Levels 4. Every field of Config
// can be overridden by JSON (tasks.New), and is validated.
//
// # Hypothesis space and exact Bayes
//
// The hypothesis space is the K faults: already discrete. Replies are
// deterministic given the fault (the cell), so the exact posterior after any
// queries is flat on the consistent set C (the faults whose cells agree with
// every reply) — TestBayesAgainstBruteForce checks it against enumeration of
// the joint of fault and reply sequences. The truth is never ruled out, so
// |C| ≥ 1. I_AS = Ψ(b̄_H) − 1/K = 1/|C_H| − 1/K.
//
// # Tokens
//
// Vocabulary (27 tokens by default): <pad> <bos> <eot>, the headers <ask>
// <guess> <answer>, the answers YES NO UNK, the replies REP (the question was
// already asked: no evidence, its own token, distinct from a genuine UNK) and
// BAD (the turn did not parse), the questions q0…q11, the levels 0…3.
//
// The prompt is <bos>, then per question its token followed by its K cells in
// fault order (one token per cell; position names the fault, and the query
// token q_i repeats the column's own header token, so a reply can be matched
// to its column by equality), then <ask>. A query is one question token; the
// reply is the answer token, then <guess> (<answer> before the final belief).
// A belief is K level tokens, one per fault in table order: weights
// proportional to the levels, normalised; after it comes <ask> (BAD <ask> if
// it did not parse; nothing after the final one). Instance 0 of the test
// split of flodial-easy played by the strong policy (decoded with
// Vocab.Decode; "|" separates the agent's turn from the observation):
//
//	<bos> q0 NO NO NO YES NO NO q1 NO YES NO YES NO YES q2 UNK NO UNK NO YES NO
//	  q3 NO NO NO NO NO NO q4 NO NO NO NO NO NO q5 NO NO NO NO NO NO
//	  q6 NO NO YES NO NO NO q7 NO NO UNK NO YES NO q8 NO YES YES YES UNK NO
//	  q9 NO UNK YES NO NO YES q10 NO NO NO NO NO NO q11 NO NO NO NO NO NO <ask>
//	q8 <eot>          | YES <guess>     C = {1, 2, 3}
//	0 3 3 3 0 0 <eot> | <ask>
//	q9 <eot>          | YES <guess>     C = {2}
//	0 0 3 0 0 0 <eot> | <ask>
//	q4 <eot>          | NO <guess>      (nothing left to learn)
//	0 0 3 0 0 0 <eot> | <ask>
//	q7 <eot>          | UNK <guess>
//	0 0 3 0 0 0 <eot> | <ask>
//	q3 <eot>          | NO <answer>
//	0 0 3 0 0 0 <eot> |                 final answer: fault 2, reward 1
//
// The belief format. The spec's belief is a weight vector over the K faults;
// here it is K level tokens in {0, …, Levels−1}, one small token per fault
// whose position names the fault, so a small model can fill each position by
// checking that fault's column cells against the replies. Because the exact
// posterior is always flat on C, levels {0, top} already express it exactly;
// a unique top needs one more level, and Levels = 4 leaves room for graded
// beliefs. It was not reduced to a single fault id: with an id, Ψ is 0 or 1,
// and the spec's BT critique ("the weight on the true fault rose") and C_BT
// would only see jumps. Per-turn limits: a query is 2 tokens with <eot>, a
// belief K + 1. An episode whose turns respect them has at most
//
//	MaxTokens = (2 + Q·(K+1)) + 4·R + (K+1)·R + 2·(R−1)
//
// tokens: 149 for flodial-easy, 183 for flodial-hard (TestTokenBudget: exact
// for an all-malformed episode).
//
// # Echo
//
// With Config.Echo the reply to a query also restates the asked question's
// column: the answer token, then the column's K cells in fault order, then
// the header (after a malformed query, K BAD tokens stand for the cells, so
// the observation keeps its shape). Without it, writing the level of fault
// k after asking q takes several hops of lookup inside one token: find
// column q in the prompt by matching the query token with its header, take
// its k-th cell, compare it with the reply, and combine the result with the
// previous level of fault k. A small plain transformer imitating the strong
// policy learns what to ask in the plain layout but not how to update its
// belief (docs/arew.md, "Capability"); with the echo, the cell for fault k
// sits at a fixed distance from the belief token for fault k, and the same
// model tracks beliefs. Both skills are still the agent's: choosing a
// question that splits the remaining faults needs the table in the prompt,
// and the belief must be carried across rounds. The echo changes
// observations only: critiques, rewards and measures of the same moves are
// those of the plain layout (TestEchoRestatesTheColumn), and MaxTokens
// grows by K per round.
//
// # Styles
//
// With Config.Style ("careful" or "hasty") the prompt carries a style token
// after BOS; both styles share one vocabulary (two tokens more than without
// a style), so one model can be taught two behaviours from demonstrations
// conditioned on the token, and trained or evaluated under either. This is
// how the project builds a base that is capable but locked, the stand-in for
// a pretrained model that knows how to ask and track but rarely chooses to
// (docs/arew.md, "The locked base"): strong demonstrations under careful,
// locked ones under hasty, RL under hasty, and the careful style as the
// proof that the skills are still in the weights. The styles and the
// locked demonstrator are the mechanism every task shares (tasks doc,
// "Styles and the locked demonstrator"); FloDial gives it its moves
// (policy.go), and its shipped base rebuilds byte for byte through it.
//
// # Robustness
//
// A query that is not exactly one question token, or a belief that is not
// exactly K level tokens with some positive level, is malformed: z = −1, the
// turn is consumed, the reply is BAD; a malformed belief leaves the stated
// belief where it was (Ψ is carried, so recovering earns no C_BT), and a
// malformed final answer scores 0 with evidence 0. The episode always ends
// after 2·Rounds turns. FuzzEpisode feeds arbitrary token ids to both parsers.
//
// # Critiques
//
// Critiques "spec" (default; docs/arew.md §4, as the paper's code has them):
//
//	AS: +1 if the reply is YES; 0 if NO; −1 if UNK, a repeat or malformed.
//	BT: after YES or NO, +1 if the (normalised) weight on the true fault rose
//	    above the last valid stated belief's (flat before the first), else −1;
//	    after UNK, REP or BAD, +1 if the belief is unchanged (normalised,
//	    within 1e-9), else −1; malformed −1.
//
// The paper's code compares raw numbers; here the weights are normalised, so
// only a real shift of mass counts. The spec's rules are noisy here by
// design: an UNK reply is informative (it rules out faults with YES/NO cells)
// yet the BT rule asks the belief to stay put, and once C = {truth} no reply
// can raise the weight, so after YES/NO the right belief earns −1.
//
// Critiques "consistent" (the prototype's rules), with C the
// faults consistent with every reply before the turn:
//
//	AS: malformed −1; 0 once |C| ≤ 1; −1 for a repeat or a question whose
//	    cells take one value on all of C; +1 for a new question that splits C.
//	BT: −1 if malformed or if its top (any fault tied for the largest weight)
//	    is outside C; +1 if its top lies in C after a reply that eliminated
//	    something; else 0. A stale belief earns −1 every round.
//
// Critiques "mass" and "majority": the consistent AS rule above, and one
// sign per belief turn that reads no hidden truth, only C after the reply
// (which the table and the replies fix, so an agent could compute it):
//
//	mass:     the sign of the change in the belief's mass on C
//	          (tasks.MassBT): +1 if all of it is on C or more of it than
//	          the last valid belief's; −1 if less, or as much after a
//	          reply that eliminated something; else 0.
//	majority: the sign of the sum of the K per-fault critiques below
//	          (tasks.MajorityBT), 0 on a tie.
//
// A malformed belief is −1 under both. They are the cheap, turn-level
// counterparts of the per-fault rule: one sign per belief, as the paper's.
//
// Critiques "per-fault": the consistent AS rule above, and a belief judged
// one fault at a time (tasks.AppendPerHypothesisBT), with C after the reply:
//
//	BT: for each fault k, its level token earns +1 if k ∈ C and the level
//	    is the belief's top level, or k ∉ C and the level is 0; else −1.
//	    A malformed belief is one step with −1.
//
// The turn's Z is the consistent BT rule (its summary, for logs); the K
// per-token critiques go to Step.TokenZ, and AREW counts each level token
// as a step of its own. The consistent rule is all or nothing over the K
// tokens: a belief that drops two of three eliminated faults earns −1, as
// a frozen one does, so a near-deterministic stale belief almost never
// samples a +1 and the margin has nothing to push. Per fault, dropping one
// eliminated fault turns that token's −1 into +1, so every partial update
// is credited for what it gets right (docs/arew.md §4, "Per-fault
// critiques").
//
// TestSpecCritiques, TestConsistentCritiques, TestPerFaultCritiques and
// TestTurnLevelCritiquesWithoutTruth play hand-built episodes that hit every
// rule.
//
// # Scripted policies and baselines
//
// random (random questions; one random fault, kept), weak(q_as, q_bt) (the
// strong question with probability q_as, else an unasked question that cannot
// split C; the Bayes belief with probability q_bt, else stay put or drift one
// level), strong (largest expected information gain, then exact Bayes), and
// the best constant answer; and locked(q_as, q_bt), the confidently
// uninformed demonstrator of the locked base: weak's questions, but with
// probability 1 − q_bt the last stated belief held (flat, every fault at the
// top level, before any Bayes belief), a final answer that keeps it with a
// unique top on its first top fault, no drift and no random guesses. Locked
// with both knobs at 0.03 (consistent critiques, 500 test instances,
// TestLockedPolicy): success 0.182, AS proxy 0.067, I_AS 0.090, C_BT
// 0.017, no malformed turn, against random's 0.176, 0.327, 0.468, 0.147;
// with both knobs at 1 it plays as strong (0.958). BestConstant searches every answer that ignores
// the replies: a final answer scores by its unique argmax alone, so the K
// one-hot answers cover the answer space, and the best is the most frequent
// true fault on the split (≈ 1/K, the truth being uniform).
//
// go run ./cmd/baselines -tasks flodial-easy,flodial-hard -n 1000 (test split):
//
//	task          policy           success  AS proxy  BT proxy  I_AS   C_BT   evidence
//	flodial-easy  random           0.184    0.126      0.003    0.445  0.153  0.184
//	flodial-easy  weak(0.10,0.10)  0.160    0.050      0.011    0.193  0.244  0.219
//	flodial-easy  strong           0.962    0.209      0.158    0.790  0.794  0.958
//	flodial-easy  constant fault5  0.178
//	flodial-hard  random           0.104    0.097     −0.004    0.318  0.091  0.104
//	flodial-hard  weak(0.10,0.10)  0.114    0.039      0.006    0.143  0.173  0.153
//	flodial-hard  strong           0.854    0.195      0.145    0.725  0.735  0.851
//	flodial-hard  constant fault5  0.135
//
// Best constant 0.178 / 0.135 against strong 0.962 / 0.854. Each skill alone
// is nearly useless, the coupling the paper is about: on flodial-easy,
// weak(1, 0) (strong questions, beliefs that never follow) scores 0.190 and
// weak(0, 1) (Bayes beliefs after uninformative questions) 0.198. Under
// Critiques "consistent" the AS proxy is random 0.315, weak(0.1,0.1) 0.119,
// strong 0.406 on Easy (0.289 / 0.107 / 0.441 on Hard); the strong policy's
// proxy stays below 1 because once |C| = 1 its queries earn 0, and its
// beliefs never earn −1 (TestConsistentProxies).
//
// # Recycled episodes
//
// Task.Recycle (tasks.Recycler) replays an episode's memory as another
// instance: the generators are reseeded in place and each column's fault
// permutation is drawn into a kept array by the same shuffle rand.Perm
// runs (TestPermIntoMatchesPerm); the prompt and the observations are
// appended to one token array an episode never overwrites, the posterior
// updates into its other half, the consistent sets and the stated and
// parsed beliefs into kept arrays; and no Text is rendered. A recycled
// episode plays every move (well-formed or not, under every critique rule,
// echo and style) exactly as NewEpisode's does (TestRecycleMatchesNewEpisode)
// and, once its memory has grown, allocates nothing
// (TestRecycledEpisodeAllocatesNothing).
package flodial
