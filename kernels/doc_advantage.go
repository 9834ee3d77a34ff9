package kernels

// Advantage kernels on packed trajectories: the math.
//
// # Layout
//
// A batch of B trajectories is one flat array of T tokens (Packed): Offsets
// (B+1) cut it into trajectories, Mask (T) marks the agent's tokens (1) apart
// from prompt and observation tokens (0). The critiqued steps (Steps) are
// half-open token spans with a critique z ∈ {−1, 0, +1}, again flat with
// their own offsets. No padding, no per-trajectory slices: a CUDA port reads
// the same arrays with one thread (or block) per trajectory. Every kernel
// validates the layout first and returns an error before writing anything.
// Every kernel writes 0 on observation tokens (except when it accumulates).
//
// # GAE (GAERef, GAE; tests: TestGAEHandComputed, TestGAESkipEqualsRemoval)
//
// Each agent token is an action. With V_t the critic's value at token t and
// r_t the token reward (the outcome reward sits on the last agent token), the
// TD residual and Generalized Advantage Estimation (Schulman et al. 2016) are
//
//	δ_t = r_t + γ·V_{t+1} − V_t
//	A_t = Σ_{l≥0} (γλ)^l δ_{t+l}   ⇔   A_t = δ_t + γλ·A_{t+1},   A, V = 0 past the end
//	R_t = A_t + V_t                 (the λ-return: the critic's regression target)
//
// λ = 0 gives the one-step TD error A_t = δ_t; λ = 1 telescopes the V terms,
// A_t = Σ_l γ^l r_{t+l} − V_t, the discounted return to go minus the value
// (the released AREW code runs γ = λ = 1). The kernel runs the second form
// backwards over each trajectory in float64.
//
// Multi-turn trajectories interleave the environment's replies. Those tokens
// are not actions: the reply is part of the transition from the agent's last
// token of one turn to its first token of the next. So "t+1" means the next
// agent token, and the recursion skips observation tokens, carrying V_{t+1}
// and A_{t+1} over them unchanged — exactly verl's multi-turn GAE, which
// updates its running next-value and running advantage only where the
// response mask is 1. The result equals GAE on the trajectory with the
// observation tokens cut out (TestGAESkipEqualsRemoval checks it bit for bit).
//
// Where this differs from verl's compute_gae_advantage_return:
//   - outputs are 0 on observation tokens (verl leaves the carried advantage
//     there, and the loss masks it out);
//   - a reward other than 0 on an observation token is an error (verl drops
//     it silently, since the recursion never reads it);
//   - whitening is a separate call, MaskedWhitenRef (verl whitens inside),
//     and the recursion is float64 (verl: the tensor's float32);
//   - no bootstrapping past the end: V = 0 after the last agent token, as
//     verl (a truncated episode needs its bootstrap value as a reward).
//
// MaskedWhitenRef is verl's masked_whiten: over all agent tokens of the batch,
// x ← (x − μ)/sqrt(σ² + 1e-8) with the unbiased σ² (n − 1), an error for
// n < 2 as verl raises. verl's masked_mean divides by n + 1e-8; this divides
// by n (a relative 1e-8/n, below float32 resolution).
//
// # Group baseline (GroupBaselineRef, GroupBaseline; TestGroupAdvantagesHandComputed)
//
// GRPO drops the critic: the G rollouts of one prompt form a group g, and the
// other rollouts' outcomes are the baseline. With outcome scores r_i,
//
//	μ_g = mean_{i∈g} r_i,   σ_g = sqrt( Σ_{i∈g} (r_i − μ_g)² / (n_g − 1) )
//	A_i = (r_i − μ_g) / (σ_g + ε)       (GRPO, ε = 1e-6: GRPONorm)
//	A_i =  r_i − μ_g                    (Dr. GRPO, no σ: DrGRPONorm)
//
// and every agent token of trajectory i gets A_i (BroadcastRef). σ is the
// unbiased estimate (torch.std), ε is added to σ, not to σ², and a group of one
// gets μ = 0, σ = 1 — all as verl's compute_grpo_outcome_advantage; note the
// last means a lone rollout's advantage is its raw score, not 0. A group where
// all scores agree gets A = 0: nothing to learn from it. Groups are named by
// a dense id per trajectory, in [0, B) (verl takes the prompt uid; map uids to
// dense ids once per batch), so members need not be contiguous. Scores are
// per trajectory (verl sums the token rewards first). Sums are float64.
//
// # AREW margin correction (MarginCorrectionRef, MarginCorrection)
//
// MarginCorrection writes λ·u, the per-token weights of AREW's
// intra-trajectory likelihood margin L̂(ω;τ) (u_t = +1/|P| on steps
// critiqued +1, −1/|N| on steps critiqued −1, 0 otherwise, and 0 on a
// trajectory unless both P and N are non-empty). optim/doc.go ("AREW")
// defines L̂ and derives why a policy-gradient surrogate with Â = A + λ·u
// has, at ratio 1 and with the sampled trajectories held fixed, the
// gradient of J + λ·L̂; that is why AREW leaves PPO/GRPO/GSPO, the critic
// targets and the rewards alone and only adds λ·u to the advantages (after
// whitening, as the released code adds its modifier to verl's whitened GAE
// output). Only agent tokens belong to a step; a step with no agent token
// has no log-prob and counts in neither P nor N. With ℓ_k the log-prob of
// agent token k, the modes (w per agent token, u = +w on P, −w on N) are:
//
//	step (copied)    w = 1/|P|, 1/|N|: u_t copied to each token of step t. This
//	                 is ∂L̂/∂ℓ_k exactly (TestMarginIsTheGradientOfThePaperMargin).
//	                 Σ over steps = 0; Σ over tokens = mean |t| on P − mean |t| on N.
//	step_spread      w = 1/(|P|·n_t), 1/(|N|·n_t): u_t spread evenly over the
//	                 step's n_t agent tokens: the gradient of the same margin on
//	                 per-step mean token log-probs. Σ = 0 over steps and tokens.
//	minority_fixed   over tokens, s± the agent tokens in P and N: the side with
//	                 fewer tokens gets 1 per token, the other minority/majority
//	                 (s+ = s−: both 1). Σ = 0 over tokens. The released code's
//	                 default for PE, MediQ and FloDial.
//	abs_sum          w = 1/(2 s+), 1/(2 s−). Σ u = 0 and Σ |u| = 1 over tokens.
//
// Every mode is 0 for a trajectory with P or N empty (TestMarginOneSidedIsZero)
// and sums to 0 as stated (TestMarginSumsToZero, TestMarginHandComputed). The
// kernel writes λ·u, or adds it into an advantage buffer (accumulate), which is
// also how two margins (say AS and BT critiques kept apart) stack.
//
// Copied or spread, and what the trainers should use. The copied form is the
// paper's objective itself: the equivalence of optim/doc.go (gradient of RL
// loss + λ·margin = gradient of the RL loss with Â) holds exactly with it, its
// per-token size 1/|P| sits on the scale of a per-token advantage whatever the
// step length, and it is what both toy prototypes of docs/arew.md §6 used (in the
// FloDial toy a step was one token, where the two forms coincide). Its cost:
// Σ_k u_k = mean length of P steps − mean length of N steps, a net push on the
// whole trajectory's log-likelihood when good and bad steps differ in length,
// and a long step moves the parameters more than a short one. The spread form
// is a pure redistribution over tokens and gives each step the same total
// weight whatever its length, but its per-token size shrinks as 1/n_t, so λ
// must grow with the typical step length and a long step's correction can
// vanish next to the outcome advantage. Recommendation: the trainers use
// `step` (copied) by default — the paper's formula, exact in the equivalence
// test, and the toy tasks' steps are short fixed-format spans (a query of a
// few tokens, a belief of K numbers) whose lengths differ little between P and
// N within one critique kind; use step_spread, with λ scaled up by the mean
// step length, where step lengths vary widely (Telecom tool calls and
// messages), as the released code's own step mode does.
//
// Where this differs from the released code (github.com/unimpor/T3,
// get_arew_modifier): its token modes take token labels and divide by
// (count + 1e-12); here critiques are per step, and the counts are exact
// (both sides are known to be non-empty). Its step mode, step_abs_sum, gives
// ±λ/(2|P|), ∓λ/(2|N|) per step spread over the step's tokens, i.e. half of
// step_spread here (its λ = 50 on tau2 is λ = 25 here); it also falls back
// to neutral steps as the missing side of a one-sided trajectory and can
// truncate the negative steps (prefix/suffix) — neither is implemented: here
// every mode is 0 on one-sided trajectories, as docs/arew.md §2 defines. Its fixed_pos
// and fixed_neg modes are not offered.
//
// # Fast paths
//
// The exported names without Ref (GAE, MaskedWhiten, GroupBaseline,
// MarginCorrection) are the trainers' entry points; each is its
// reference. Every kernel's work is independent across trajectories, so
// the obvious fast path runs the reference's per-trajectory loop on disjoint
// chunks of trajectories on several goroutines (bit-identical results). On
// the 2-core host that split does not pay, where a whole batch takes about
// a millisecond or less (docs/bench.md, "Advantage kernels"), so only the
// references exist.
