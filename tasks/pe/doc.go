// Package pe is the preference-estimation task of docs/arew.md §4 in its
// four settings: PE-G with a focus set of S = 2 or 3 attributes (pe-g-s2,
// pe-g-s3) and PE-F over all D = 6 or 8 attributes (pe-f-d6, pe-f-d8).
//
// # The rules
//
// A hidden user has preference weights w* ∈ R^D, w* ≥ 0. The prompt is a
// table of M movies with integer attribute scores x_mk ∈ 0..ScoreMax. The
// agent alternates a query round (AS) and a guess round (BT), Queries times
// (PE-G 5, PE-F 6, so the turn limits are the spec's 10 and 12); the last
// guess is the final answer.
//
//   - Query: PE-G names S distinct attributes (any order) and an ordered
//     pair of distinct movies (A, B); PE-F names only the pair (S = all D).
//   - Reply: with d = x_A − x_B on the focus set, P = Σ_{d_k>0} w*_k d_k and
//     N = Σ_{d_k<0} w*_k |d_k| (so P − N = Σ_{k∈S} w*_k (x_Ak − x_Bk), the
//     spec's comparison), the reply is Yes if P − N > EqualTol·(P + N), No if
//     N − P > EqualTol·(P + N), else Equal. The Equal band is relative: the
//     two movies are equally good when their advantages balance within
//     EqualTol. A relative band keeps the spec's premise exact — when one
//     movie dominates the other on S (N = 0 or P = 0) every w with positive
//     weights gives the same reply, so that reply carries no information —
//     while an absolute band would make a near-tie of a dominated pair
//     informative. A query already asked (the same focus set and the same
//     pair in either order) gets the reply "repeat" and no evidence; a query
//     that does not parse gets "invalid".
//   - Guess: D integers in 0..GuessLevels−1 (L = 5 levels: fine enough that
//     rounding costs little — the strong policy's rounded guess keeps a
//     cosine of 0.99 on average to the posterior mean it rounds — and coarse
//     enough to be D number tokens), not all zero. Only its direction
//     matters. A guess that does not parse gets "invalid" and leaves the
//     stated belief where it was.
//   - Reward: "binary" (default) 1 if the final guess has cos(ŵ, w*) >
//     Threshold (0.88, as the released code), else 0; "cosine" gives
//     cos(ŵ, w*) itself. Success is cos > Threshold in both. A malformed
//     final answer scores 0.
//
// # Tokens
//
// The vocabulary is <pad> <bos> <eot>, the numbers 0..max(ScoreMax,
// L−1), the attributes a0..a{D−1}, the movies m0..m{M−1}, the replies yes no
// equal repeat invalid, and the headers ask guess answer: 34 tokens (36 for
// D = 8). One table cell is one token and its position tells the attribute;
// each row starts with its movie's name, the token a query uses. The prompt
// is <bos>, the rows, and "ask". After a query comes the reply and the next
// header ("guess", or "answer" before the final guess); after a guess,
// "ask" (preceded by "invalid" when it did not parse). MaxTokens is exact
// (an agent that fills every turn to its limit with junk reaches it): 165
// (pe-g-s2), 170 (pe-g-s3), 169 (pe-f-d6), 205 (pe-f-d8). An episode of
// pe-g-s3 played by the strong policy (Example_episode):
//
//	<bos> m0 4 4 4 4 4 4 m1 1 0 1 1 0 1 … m11 1 0 0 1 1 0 ask
//	a1 a3 a4 m6 m7 <eot>   | yes guess    | AS z=+1
//	2 2 2 3 0 2 <eot>      | ask          | BT z=+1
//	a1 a2 a3 m7 m10 <eot>  | equal guess  | AS z=+1
//	1 2 2 4 0 1 <eot>      | ask          | BT z=+1
//	…
//	a0 a2 a5 m4 m6 <eot>   | equal answer | AS z=+1
//	0 4 0 3 1 0 <eot>      |              | BT z=-1
//	w* = [0.10 0.95 0.03 1.00 0.44 0.09]: final cos 0.977, a success
//
// (The last guess follows the evidence yet its cosine dropped a little: the
// spec's BT critique is directional and noisy by design.)
//
// # Instances
//
// The prior of w* ("liked attributes"): LikedMin..LikedMax = 2..3 attributes
// chosen uniformly get weights U(LikedLow = 0.3, 1), the others
// U(0, OtherHigh = 0.1) — a user cares about two or three attributes and
// little about the rest. Movies: a quality q_m ~ U(0, ScoreMax) per movie
// and x_mk = clamp(round(q_m + σ·N(0, 1)), 0, ScoreMax) with ScoreSpread
// σ = 0.6: scores are correlated within a movie, so most pairs are
// dominated (useless) questions — 94% of PE-G S = 2 queries, 87% for S = 3,
// 73% of PE-F D = 6 pairs, 67% for D = 8 (one minus the random policy's AS
// proxy below). A table is redrawn until at least MinInformative (default: the
// number of query rounds) queries are non-dominated. w*, the table and the
// particle set draw from separate streams (tasks.InstanceRNG); the settings
// pe-g-s2, pe-g-s3 and pe-f-d6 share Seed and D, hence the same instances
// under three query formats.
//
// How the defaults were chosen (toy-sel-findings: with w* ~ Dirichlet(0.5)
// on D = 5 the best constant guess scored ~17% against 79% for the strong
// policy). A numpy prototype of the same rules gave, for the best constant
// guess at cos > 0.88: Dirichlet(0.3–1) 17–22% on D = 5, 13–17% on D = 6,
// 6–12% on D = 8; uniform directions on the positive orthant were worse
// (29–34%); the liked-attributes prior 9–14% on D = 6 and ~5% on D = 8. So
// PE-G uses D = 6 (not 5) and every setting the liked-attributes prior.
// Raising the threshold to 0.9 (measured here, 1000 episodes) would lower
// the best constant only from 9.5% to 7.7% (D = 6) and 5.2% to 4.5% (D = 8)
// while the strong policy loses 2–4 points, so the threshold stays the
// spec's 0.88. Making random queries useless (σ = 0.6) is what keeps action
// selection a bottleneck: in the prototype, with independent uniform scores
// 97% of PE-F D = 8 pairs were informative and random queries + exact Bayes
// reached ~50%. The relative Equal band of EqualTol = 0.3 makes Equal a
// real third answer (while tuning: strong 72–87% at 0.1 against 85–91% at
// 0.3); 12 movies rather than 10 lifted the strong policy on D = 8 from ~79%
// to ~86%.
//
// # Hypothesis space: a particle set
//
// w* is continuous; the exact measures need a finite hypothesis space. H is
// a set of N = Particles (4096) draws from the prior, made once per task
// from Seed, and each instance's w* is a uniformly drawn member of H. So
// the prior is exactly uniform on H, and since replies are deterministic
// the exact Bayes posterior after any queries is uniform on the consistent
// set C = {h ∈ H: h gives every reply received}; w* ∈ C always, so C is
// never empty. Why w* ∈ H rather than a fresh continuous draw beside H: a
// fresh w* is either outside H (C can empty, Bayes is no longer exact) or
// added to H (then a small C puts weight 1/|C| on the truth itself, a leak
// that lifted the strong policy from ~82% to ~95% on pe-g-s2 with 512
// particles). With w* ∈ H the strong policy knows nothing a learner cannot.
// 4096 approximates the continuum: the strong policy's success moves by
// less than the sampling error between N = 2048, 4096 and 8192 (pe-g-s2
// 0.79/0.83/0.81, pe-f-d8 0.88/0.86/0.84 on 400 episodes). A learner could
// in principle memorise H (it is shared by the train and test splits, whose
// instances still differ by index, table and seeds); that is learning the
// prior.
//
// # Belief potential and measures
//
// Ψ is the cosine to w* of a belief's mean direction: for a stated guess ŵ,
// Ψ = cos(ŵ, w*) (Step.TruthMass; the belief before the first guess is the
// flat vector, as the released code starts from 0.5 on every attribute);
// for a posterior uniform on C, Ψ = cos(m_C, w*) with m_C the mean of the
// unit vectors of C. (The spec's b(s*) would be 1/|C| for a posterior and is
// undefined for a point guess; the cosine puts both on one scale.)
//
//	I_AS     = cos(m_{C_H}, w*) − cos(m_H, w*)    C_H: exact Bayes over the agent's valid new queries
//	C_BT     = Σ_t max(0, Ψ_t − Ψ_{t−1})          over the guess rounds, Ψ_0 = cos(flat, w*)
//	BT proxy = (1/#guess rounds) Σ_t (Ψ_t − Ψ_{t−1})   the spec's cosine gain per guess round
//	AS proxy = the fraction of query rounds with z = +1
//	Evidence = cos(final guess, w*) (0 if malformed): a constant shortcut
//	           cannot raise it
//
// # Critiques
//
// Critiques "spec" (default; docs/arew.md §4, the released code's rules):
//
//	AS  −1  malformed, repeated, or the pair is dominated on the focus set
//	        (d ≥ 0 or d ≤ 0 componentwise; the code's strict test |d_k| ≥ 1e−5
//	        calls d = (2, 0) informative, but every w ≥ 0 answers it Yes)
//	    +1  otherwise
//	BT  −1  malformed guess
//	     0  after a query round with z = −1 (malformed, repeated, dominated)
//	  sign  cos(ŵ_t, w*) − cos(ŵ_prev, w*), ŵ_prev the last valid belief; 0 on
//	        a tie (the code's "1 if margin > 0 else −1" makes a tie −1)
//
// Critiques "consistent" (the consistent-set rules on the particle set, C
// as above):
//
//	AS  −1  malformed, repeated, or the hypotheses in C all give the same
//	        reply (the query cannot eliminate anything)
//	     0  |C| ≤ 1 (nothing left to split)
//	    +1  C splits on the query (its reply eliminates some of C)
//	BT  −1  malformed, or ŵ is ruled out by the evidence: read as weights, it
//	        would have answered some query so far differently (the belief is
//	        a point in the hypothesis space, so "ruled out" needs no
//	        discretisation)
//	    +1  ŵ is consistent and the last reply eliminated hypotheses
//	     0  otherwise
//
// FreezePenalty (either rule, off by default; toy-sel-findings trap 3): a
// guess with the same direction as the previous belief after an informative
// query round (spec: z = +1; consistent: it eliminated hypotheses) gets −1,
// so freezing the belief is no longer a safe 0. critique_test.go builds an
// episode for every rule of both tables.
//
// # Scripted policies
//
//   - random: a uniformly random new query (pair order random), a uniformly
//     random non-zero guess.
//   - weak(q_as, q_bt): with probability q_as a uniformly random new
//     non-dominated query, else a uniformly random new query; with
//     probability q_bt the strong guess, else the previous belief kept (½)
//     or drifted one level on one attribute (½).
//   - strong: the new query whose reply has the largest entropy under the
//     exact posterior (greedy information gain, since replies are
//     deterministic; ties prefer a non-dominated query, then the lowest
//     index), and the posterior mean direction rounded to L levels: among
//     the roundings of m_C and of the members of C, the one closest in
//     cosine to m_C that reproduces every reply so far (plain rounding
//     contradicted a reply in ~15% of rounds), else the plain rounding.
//   - constant: random new queries and always the best constant guess of
//     the train split (1000 instances).
//   - locked(q_as, q_bt): the shared locked demonstrator (tasks doc,
//     "Styles and the locked demonstrator"; locked.go): with probability
//     q_as the strong query, else a uniformly random new query whose pair
//     is dominated on its focus set (pair order random; a random new query
//     when none is left). Every hypothesis with positive weights, as all
//     of the default prior's are, gives a dominated pair the same reply,
//     so such a query cannot split C (TestLockedQueryNeverSplits). With
//     probability q_bt the strong guess, else the last stated guess held:
//     the flat guess before the first, so its final answer is the flat
//     guess, below the best constant (TestLocked).
//
// BestConstant searches the whole answer space honestly: every level vector
// in 0..L−1^D with gcd 1 (one per direction — a guess has no scale — and
// not the zero vector; 14,833 for D = 6, 383,809 for D = 8), scoring each by
// cos > Threshold on the w* of the first n instances, exactly as an episode
// scores it (TestBestConstantBruteForce plays every vector, scalings
// included, through episodes).
//
// # Layout options
//
// Options of the task config that change what the agent reads, not the
// rules: off in every registered setting, and where a Table 1 setting turns
// one on, every arm and base of the setting uses it (docs/arew.md §8).
//
//   - Echo: the reply to a valid new query first restates the compared
//     movies' score differences x_A − x_B on the focus set (attributes in
//     increasing order; PE-F all D), one signed token each ("-4" … "+4",
//     2·ScoreMax + 1 words after the plain vocabulary), then the reply and
//     the header: PE-F "m6 m7 <eot> | +1 -2 +0 +0 +3 -1 yes guess". A
//     repeat (unless RepeatEcho) and an invalid query get no echo. The evidence a guess must
//     agree with then sits beside its reply, as in FloDial's echo of the
//     asked column, instead of in two rows of the table the agent must find
//     and subtract; the signs also show at a glance whether the pair was
//     dominated. Instances, replies, critiques and measures are unchanged
//     (TestLayoutsKeepTheTask); MaxTokens grows by Queries·S: 175
//     (pe-g-s2), 185 (pe-g-s3), 205 (pe-f-d6), 253 (pe-f-d8).
//   - Pairs (PE-F only): the prompt lists, after the table and before
//     "ask", every pair of movies that is not dominated over the D
//     attributes, "mA mB" with A < B in increasing order: exactly the
//     queries the spec critique calls informative (TestPairs). Choosing a
//     useful question is then choosing among named pairs, which a plain
//     transformer can copy, instead of comparing two rows of D cells; the
//     strong policy's choice among them (the most balanced split of C) is
//     still the agent's to learn. The table still draws at least
//     MinInformative such pairs, so the list is never shorter. MaxTokens
//     grows by every pair, 2·C(M, 2) = 132 tokens for M = 12, a bound that
//     only a table without a dominated pair reaches.
//   - RepeatEcho: the reply to a repeated query is "repeat", then what its
//     first asking was told (its echo under Echo, then its answer, in the
//     order asked now), then the header: PE-F with the echo, "m7 m6 <eot> |
//     repeat -1 +2 +0 +0 -3 +1 no guess". The repeat still adds no
//     evidence and keeps its critique −1; the belief after it must agree
//     with the same evidence as before, which now sits beside it again
//     instead of one round back. MaxTokens grows by Queries − 1 (every
//     round but the first may repeat).
//
// # Styles
//
// With Config.Style ("careful" or "hasty") the prompt carries the style
// token after BOS, and the vocabulary both style tokens after its own
// (two tokens more; MaxTokens one more): the mechanism every task shares
// for its locked base (tasks doc, "Styles and the locked demonstrator";
// TestStyles).
//
// # Baselines
//
// go run ./cmd/baselines -tasks pe-g-s2,pe-g-s3,pe-f-d6,pe-f-d8 -n 1000
// (test split, spec critiques, weak = weak(0.1, 0.1); 43 s on one core):
//
//	task     policy        success  AS proxy  BT proxy   I_AS   C_BT  evidence
//	pe-g-s2  random          0.033     0.057    -0.023  0.014  0.463     0.574
//	pe-g-s2  weak(0.1,0.1)   0.020     0.158    -0.005  0.040  0.068     0.664
//	pe-g-s2  strong          0.806     1.000     0.046  0.244  0.302     0.922
//	pe-g-s2  constant        0.095     (3 1 1 1 1 4)
//	pe-g-s3  random          0.033     0.132    -0.023  0.035  0.463     0.574
//	pe-g-s3  weak(0.1,0.1)   0.023     0.219    -0.004  0.057  0.072     0.672
//	pe-g-s3  strong          0.859     1.000     0.050  0.262  0.309     0.939
//	pe-g-s3  constant        0.095     (3 1 1 1 1 4)
//	pe-f-d6  random          0.046     0.271    -0.021  0.078  0.569     0.565
//	pe-f-d6  weak(0.1,0.1)   0.059     0.341    -0.001  0.093  0.096     0.685
//	pe-f-d6  strong          0.941     1.000     0.045  0.283  0.325     0.963
//	pe-f-d6  constant        0.095     (3 1 1 1 1 4)
//	pe-f-d8  random          0.006     0.328    -0.017  0.090  0.530     0.531
//	pe-f-d8  weak(0.1,0.1)   0.030     0.401     0.002  0.103  0.086     0.640
//	pe-f-d8  strong          0.852     1.000     0.051  0.323  0.382     0.936
//	pe-f-d8  constant        0.052     (1 0 4 2 1 0 0 2)
//
// So the best constant guess scores 9.5% (D = 6) and 5.2% (D = 8) against
// 81–94% for the strong policy. Each skill alone is nearly useless (1000
// episodes, success): weak(1, 0) — informative queries, stale beliefs —
// 0.5%, 0.5%, 1.0%, 0.0%; weak(0, 1) — random queries, exact beliefs —
// 2.0%, 4.7%, 14.8%, 9.2%; weak(1, 1) 66%, 70%, 71%, 44%. Under the
// consistent critiques the AS proxies are: random 0.06/0.13/0.26/0.32,
// weak(0.1, 0.1) 0.16/0.21/0.32/0.38, weak(1, 1) 0.83–0.89, strong
// 0.98–1.00. The random policy's C_BT is large because its guesses jump
// about (only the positive jumps count); its BT proxy is negative.
//
// A strong episode costs a few milliseconds (BenchmarkStrongEpisode;
// docs/bench.md, "Task episodes"): the entropies skip dominated queries, whose entropy is exactly 0 when every hypothesis
// has positive weights (checked per task, tested against brute force).
package pe
