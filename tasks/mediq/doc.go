// Package mediq is the MediQ interactive-diagnosis task of docs/arew.md §4:
// a patient with a hidden diagnosis among four options, atomic facts the
// agent can ask about one at a time, and a belief over the options after each
// reply, with the paper's counterfactual BT critique.
//
// # The knowledge base and the patient
//
// A clinical knowledge base is generated once from the task seed and shared
// by every instance, train and test (it plays the part of the medical
// knowledge an LLM brings; the agent must learn it, as it is never shown):
// D = 12 diagnoses dx0…dx11 and F = 32 findings fn0…fn31, 30% of them graded
// (normal/low/high), the rest binary (absent/present). Each diagnosis has
// H = 2 hallmark findings with an abnormal value (present, or low/high) of
// sensitivity s ~ U[0.8, 0.95]; every other diagnosis shows that value at the
// finding's false rate e ~ U[0.02, 0.1]. So P(value | diagnosis) is known for
// every finding, and exact Bayes over the options is computable.
//
// A patient gets four distinct diagnoses as options A–D in random order; the
// correct one is uniform among them (neither a letter nor a diagnosis's
// identity predicts it). The patient's value of each finding is drawn from
// the correct diagnosis's likelihoods. The patient can report a pertinent
// finding (one whose likelihood differs between the four options — a
// pertinent positive or negative of the case) with probability 0.85
// (PUnknown 0.15) and any other finding with probability 0.2 (PUnknownOther
// 0.8): as in MediQ's vignettes, the record holds mostly the facts that
// matter. Both depend on the options only, never on the correct one or the
// value, so "cannot answer" carries no evidence. One fact (InitialFacts),
// drawn independently of the diagnosis, is revealed in the prompt. About a
// quarter of the findings are pertinent for a given patient: a few
// well-chosen questions identify the diagnosis, arbitrary ones mostly do not.
//
// An episode is Rounds = 4 rounds (8 turns) of query (AS) → reply → belief
// (BT); the fourth belief is the final answer. Reward 1 if its argmax is the
// correct option and unique.
//
// # Replies: facts, "unknown" and repeats
//
// The reply to a query is the fact's value (absent, present, normal, low,
// high), or unknown when the patient cannot answer. The paper's code answers
// a question about an already-revealed fact (asked before, or given in the
// prompt) with the same "cannot answer" text; here such a query gets its
// own token, REP, distinct from a genuine unknown, and the critiques treat
// REP exactly as the paper treats the revealed-fact "unknown" (AS −1; BT
// judged as after a reply with no new fact). Only the token differs, so the
// agent can tell "you asked this already" from "the patient does not know".
// A malformed query gets BAD.
//
// # Tokens and the belief format
//
// Vocabulary (69 tokens): <pad> <bos> <eot>, the headers <ask> <guess>
// <answer> and the separator <cf>, the five values, unknown REP BAD, dx0…dx11,
// fn0…fn31, the levels 0…9. The prompt is <bos>, the initial fact as
// (finding, value), the options' diagnoses in order A–D, <ask>. A query is
// one finding token; the reply is one token, then <guess> (<answer> before
// the final belief). A belief is
//
//	w_A w_B w_C w_D <cf> c_A c_B c_C c_D
//
// nine tokens: the real belief and the counterfactual one ("the guess I would
// state had the reply been unknown"), each four levels in 0…9, normalised to
// weights; after it comes <ask> (BAD <ask> if it did not parse; nothing after
// the final one). Levels rather than free numbers keep one small token per
// option whose position names it; ten levels carry the graded posteriors
// noisy replies produce. The final answer is the real part of the last
// belief. Instance 1 of the test split played by the strong policy:
//
//	<bos> fn4 absent dx11 dx6 dx3 dx7 <ask>
//	fn22 <eot>                  | normal <guess>
//	1 9 9 9 <cf> 9 9 9 9 <eot>  | <ask>
//	fn19 <eot>                  | absent <guess>
//	1 9 9 1 <cf> 1 9 9 9 <eot>  | <ask>
//	fn24 <eot>                  | absent <guess>
//	1 1 9 1 <cf> 1 9 9 1 <eot>  | <ask>
//	fn1 <eot>                   | present <answer>
//	0 0 9 0 <cf> 1 1 9 1 <eot>  |            final answer C (dx3), reward 1
//
// Per-turn limits: a query is 2 tokens with <eot>, a belief 10. An episode
// whose turns respect them has at most MaxTokens = (6 + 2·InitialFacts) +
// 4·R + 10·R + 2·(R−1) = 70 tokens (TestTokenBudget: exact for an
// all-malformed episode).
//
// # Styles
//
// With Config.Style ("careful" or "hasty") the prompt carries the style
// token after BOS, and the vocabulary both style tokens after its own
// (two tokens more; MaxTokens one more): the mechanism every task shares
// for its locked base (tasks doc, "Styles and the locked demonstrator";
// TestStyles).
//
// # Exact Bayes
//
// The hypothesis space is the four options (already discrete). The exact
// posterior after the prompt's fact and the replies multiplies the
// likelihoods of the observed values; "unknown" and REP leave it unchanged.
// TestBayesAgainstBruteForce checks it against enumeration of the full joint
// (option × every finding's value × which facts the patient knows) on tiny
// knowledge bases. I_AS = Ψ(b̄_H) − Ψ(b̄_0) with b̄_0 the exact belief after
// the prompt (the agent's queries' own gain); the BT measures start from the
// flat belief, the agent's implicit prior, and carry the last valid belief
// over a malformed one; the evidence measure is the final answer's mass on
// the correct option (0 if malformed).
//
// # Critiques
//
// Critiques "spec" (default; docs/arew.md §4, as the paper's code computes
// them, on normalised beliefs; prev is the last valid stated belief, flat
// before the first):
//
//	AS: +1 if a new fact arrived; −1 if the reply is unknown, REP or BAD.
//	BT: −1 if malformed (either part). After a reply with no new fact
//	    (unknown, REP, BAD): +1 if the true option's margin
//	    b[truth] − max_{j≠truth} b[j] is unchanged (within 1e-9), else −1.
//	    After a new fact: +1 if the real belief moved at least as far as the
//	    counterfactual one, ‖b − prev‖₂ ≥ ‖c − prev‖₂, else −1.
//
// "As far" is the Euclidean distance from the previous belief, as in the
// paper's code: not a direction. A Bayesian agent's counterfactual is its
// previous posterior ("unknown" carries nothing), so it earns +1 after any
// fact; an agent that reacts to silence as much as to facts earns −1. The
// rule is noisy by design: a final answer whose tie is broken after an
// unknown reply changes the margin and earns −1.
//
// Critiques "consistent": C is the set of options not ruled out, P(o |
// replies) ≥ RuleOut · max (RuleOut 0.1); a query splits C if some value it
// could return would rule out a member of C.
//
//	AS: malformed −1; 0 once |C| ≤ 1; −1 for a repeat (REP) or a finding
//	    that cannot split C; +1 for a new finding that splits C (even if the
//	    patient then cannot answer: the question was right).
//	BT: −1 if malformed or if its top (any option tied for the largest
//	    weight) is outside C; +1 if its top lies in C after a reply that
//	    eliminated something; else 0. The counterfactual part is parsed but
//	    not judged.
//
// Critiques "mass": the consistent AS rule above, and one sign per belief
// turn from the belief's mass on C after the reply (tasks.MassBT, the rule
// FloDial's "mass" uses): +1 if all of it is on C or more of it than the
// last valid belief's (flat before the first); −1 if less, or as much
// after a reply that eliminated an option; else 0; malformed −1. It reads
// no hidden truth, only C, which the replies fix; the counterfactual part
// is parsed but not judged. Unlike the counterfactual rule it is a
// direction: a belief that moves off the options the facts left earns −1
// however far it moved.
//
// TestSpecCritiques, TestConsistentCritiques and TestMassCritiques play a
// hand-built knowledge base and patient through every rule;
// TestCounterfactualRule tables the BT rule.
//
// # Scripted policies and baselines
//
// random (random findings; one random option, kept; counterfactual = real),
// weak(q_as, q_bt) (the strong finding with probability q_as, else a
// non-pertinent one; the strong belief with probability q_bt, else stay put
// or drift one level, counterfactual = previous), strong (largest expected
// information gain (1 − P(unknown)) · I(option; value), then the exact
// posterior as levels, and as counterfactual the posterior before the
// query), and the best constant answer. BestConstant searches every answer
// that ignores the replies: a final answer scores by its unique argmax alone,
// so the four one-hot answers cover the answer space; the best is the most
// frequent correct letter on the split (≈ 1/4; "always the a-priori most
// common diagnosis" scores the same in expectation, the correct diagnosis
// being uniform).
//
// locked(q_as, q_bt) is the shared locked demonstrator (tasks doc,
// "Styles and the locked demonstrator"; policy.go): with probability q_as
// the strong finding, else weak's finding that is pertinent to none of the
// options (it carries no information, so it cannot split C; 24 or so of
// the 32 findings are such, so one is always left); with probability q_bt
// the strong belief, else the last stated belief held (flat, every option
// at level 9, before the first; a final answer with a unique top on its
// first top option), with itself as counterfactual (TestLocked,
// TestLockedBelief).
//
// go run ./cmd/baselines -tasks mediq -n 1000 (test split):
//
//	policy            success  AS proxy  BT proxy  I_AS   C_BT   evidence
//	random            0.269    0.330     0.005     0.123  0.202  0.269
//	weak(0.10,0.10)   0.231    0.267     0.006     0.076  0.245  0.274
//	strong            0.891    0.845     0.149     0.544  0.655  0.845
//	constant optionD  0.261
//
// Best constant 0.261 against strong 0.891. Each skill alone is far from
// enough (TestEachSkillAlone): Bayes beliefs after random questions score
// 0.458 (n = 1000), after
// non-pertinent ones (weak(0, 1): the prompt's fact only) 0.306; strong
// questions with beliefs that never follow them (weak(1, 0)) 0.236. Under
// Critiques "consistent" the AS proxy is random 0.202, weak(0.1,0.1) 0.090,
// strong 0.647, and the strong policy's beliefs never earn −1
// (TestConsistentStrong).
package mediq
