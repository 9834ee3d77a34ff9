// Package optim holds what turns token log-probs into a parameter update:
// the RL objectives (PPO clip, value, entropy, KL, GSPO, the AREW margin),
// the loss aggregation modes, AdamW, global-norm clipping and the
// learning-rate schedule.
//
// Every objective is written once, as a pure function on float64 slices
// over a packed batch (Packed: B+1 offsets and an agent-token mask) that
// returns the loss, its gradient with respect to its differentiable input
// and verl's metrics. The graph builders (PPOClipNode, …) put the same
// function on a gorgonia graph as one custom op (SliceLoss) whose backward
// is the function's gradient, so graph and slice cannot disagree
// (TestGraphNodesAgreeWithSliceFunctions, TestGraphNodesFiniteDifference).
// Definitions follow verl's verl/trainer/ppo/core_algos.py, clamps and
// epsilons included, and the gradients follow torch's autograd conventions
// (clamp passes the gradient on its closed interval; max and min split it
// on exact ties), so the same inputs give the same numbers forward and
// backward: TestMatchesVerlOracle compares losses, metrics and gradients to
// 1e-12 with verl's own functions run under torch autograd (the fixture
// and the script that wrote it are in testdata/). Deviations are listed at
// the end.
//
// # One aggregation for every loss
//
// Each objective has a per-token loss ℓ_t and reduces it with an Agg:
// L = Σ_t w_t ℓ_t, with w_t = 0 off the mask and, on sequence i's n_i agent
// tokens, w_t = ω_i:
//
//	token-mean               ω_i = 1/T               T: agent tokens of the whole batch
//	seq-mean-token-sum       ω_i = 1/B'              B': sequences with n_i > 0
//	seq-mean-token-mean      ω_i = 1/(B' (n_i + 1e-8))
//	seq-mean-token-sum-norm  ω_i = 1/C               C: a constant (Dr.GRPO)
//
// Because L is linear in ℓ with weights that do not depend on the
// log-probs, ∂L/∂logp_t = w_t · ∂ℓ_t/∂logp_t: each section below derives
// ∂ℓ_t only (TestAggregateHandValues).
//
// Why token-mean needs a global count. A batch is often too big for one
// backward pass and is cut into micro-batches whose gradients are summed.
// If micro-batch k divided by its own count T_k, its tokens would be
// weighted 1/T_k instead of 1/T, and the summed gradient would depend on
// the cut. Passing T (Agg.GlobalTokens; Agg.GlobalSeqs for B') makes the
// weights, and so the gradients, bitwise those of the whole batch
// (TestTokenMeanMicroBatchesEqualFullBatch: 64 sequences vs 4×16, every
// mode, plus the counter-case). seq-mean-token-mean weights each sequence
// equally, so a long sequence's tokens count less; Dr.GRPO's constant C
// removes that length bias.
//
// # Policy gradient → importance ratio → clipped surrogate → dual clip
//
// The policy gradient is ∇J = E_π[Σ_t A_t ∇ log π(y_t)], so the loss
// ℓ_t = −A_t logp_t, minimised, has ∂ℓ_t/∂logp_t = −A_t. PPO samples from
// an older policy and corrects with the ratio r_t = π/π_old =
// exp(logp_t − old_t): ℓ_t = −A_t r_t, and since ∂r_t/∂logp_t = r_t,
// ∂ℓ_t/∂logp_t = −A_t r_t — the policy gradient at r = 1, importance-weighted
// away from it. The log-ratio is clamped to ±20 before exp, so a stale token
// cannot overflow (and gets no gradient past the clamp;
// TestPPOClipLogRatioClamp).
//
// The clipped surrogate takes the worse (larger) of the two losses,
//
//	ℓ_t = max(−A_t r_t, −A_t clip(r_t, 1−ε_low, 1+ε_high)),
//
// so when A_t > 0 and r_t > 1+ε_high, or A_t < 0 and r_t < 1−ε_low, the
// clipped constant wins and the gradient is 0: the update stops pushing a
// token further once its probability has moved by ε in the direction the
// advantage asks. Elsewhere ∂ℓ_t/∂logp_t = −A_t r_t. Separate ε_low and
// ε_high allow DAPO's "clip higher" (TestPPOClipHandValues,
// TestPPOClipAsymmetricRange, TestPPOClipGradientFiniteDifference).
//
// Dual clip. For A_t < 0 the clip only bounds r from below; a token whose
// ratio has grown large gives ℓ_t = −A_t r_t without bound. Dual clip caps
// it, ℓ_t = min(ℓ_t, −c A_t) with c > 1, a constant, so such tokens stop
// contributing gradient (TestPPOClipHandValues, token t2). Metrics: ClipFrac
// (tokens where the clipped term is larger), ClipFracLower (tokens capped
// by dual clip), ApproxKL = mean of −log r (verl's ppo_kl).
//
// GRPO is this same loss with group-relative advantages (computed outside
// this package) and, usually, no value loss and a k3 KL term.
//
// # Value clipping
//
// The critic's loss is ½ max((v−R)², (v̄−R)²) with v̄ = clip(v, v_old ± ε_v).
// Where the unclipped error is the larger, ∂/∂v = v − R (after the ½);
// where the clipped one is larger, v̄ sits at its bound, a constant, and the
// gradient is 0: once the prediction has moved more than ε_v from its
// rollout value towards the target, it is pushed no further
// (TestValueLossHandValues, TestValueLossGradientFiniteDifference).
//
// # Entropy bonus
//
// Loss = −coef · H, H the aggregated per-token entropy, so ∂Loss/∂ent_t =
// −coef · w_t. The entropy comes from the fused log-prob op, whose backward
// turns this into a gradient on the logits (TestEntropyBonusHandValues).
//
// # KL to a frozen reference
//
// With x = logp − ref_logp and ρ = π_ref/π = e^{−x}, the estimators of
// KL(π‖π_ref) from a token sampled from π are
//
//	k1 = x            E_π[k1] = KL (unbiased, can be negative)     ∂/∂logp = 1
//	abs = |x|                                                       ∂/∂logp = sign x
//	k2 = ½ x²         biased, low variance                          ∂/∂logp = x
//	k3 = ρ − 1 + x    E_π[k3] = KL, and k3 ≥ 0 pointwise            ∂/∂logp = 1 − ρ
//
// k3 ("low_var_kl") is computed as verl does: clamp −x to ±20, then the
// result to ±10, with zero gradient past either clamp (TestKLTokenHandValues,
// TestKLPenaltyGradientFiniteDifference). As losses their gradients differ in
// expectation over y ∼ π: k1's is E_π[∇log π] = 0; k2's is
// E_π[x ∇log π] = ∇KL(π‖π_ref), the reverse KL's gradient; k3's is
// E_π[(1−ρ) ∇log π] = −E_{π_ref}[∇log π] = ∇KL(π_ref‖π), the forward KL's.
// Loss = Coef · aggregate(k).
//
// # GSPO: the sequence ratio
//
// GSPO replaces the token ratio by a sequence ratio, the geometric mean of
// the token ratios over the agent tokens, s_i = exp(κ_i) with
// κ_i = (1/n_i) Σ_t (logp_t − old_t) (verl clamps κ_i at 10), and clips it
// with its own small range. In sequence form (GSPOSequence), with one
// advantage A_i per sequence, ℓ_i = max(−A_i s_i, −A_i clip(s_i)) and
// L = (1/B') Σ_i ℓ_i; since ∂s_i/∂logp_t = s_i/n_i,
//
//	∂L/∂logp_t = (1/B') · ∂ℓ_i/∂s_i · s_i / n_i.
//
// verl's token form (GSPO) gives each token the ratio
// s_{i,t} = sg[s_i]·π_t/sg[π_t]: its value is s_i, and its gradient flows
// only through the token's own log-prob, ∂s_{i,t}/∂logp_t = s_i. With
// seq-mean-token-mean, that token's weight is 1/(B' n_i), so its gradient is
// (1/B') ∂ℓ/∂s · s_i / n_i: the sequence form's, while allowing per-token
// advantages (TestGSPOTokenFormEqualsSequenceForm, equal up to verl's
// n_i + 1e-8; TestGSPOHandValues; TestGSPOGradientFiniteDifference).
//
// # AREW: why the margin becomes an advantage term
//
// AREW (docs/arew.md §2) adds λ·L̂_τ to the objective, with
// L̂_τ = (1/|P|) Σ_{s∈P} log π(s) − (1/|N|) Σ_{s∈N} log π(s) over the
// steps critiqued +1 (P) and −1 (N), log π(s) the sum of the step's agent
// token log-probs, and L̂_τ = 0 unless both sets are non-empty. The margin
// is maximised, so as a loss it enters with a minus sign; weighting
// trajectory τ by the ω_τ of the policy loss's aggregation,
//
//	MarginLoss = −λ Σ_τ ω_τ L̂_τ,   ∂/∂logp_t = −λ ω_τ u_s   (t ∈ step s)
//
// with u_s = +1/|P|, −1/|N| or 0. The clipped surrogate's gradient at ratio 1
// is −ω_τ A_t (r = 1 lies inside every clip range, and below the dual-clip
// cap), and is linear in A_t. So with Â_t = A_t + λ u_s on every token of
// step s,
//
//	∇ PPO(Â) = −ω_τ (A_t + λ u_s) = ∇ PPO(A) + ∇ MarginLoss,
//
// which is why AREW trains by changing the advantage only. Precisely: the
// equality is exact at ratio 1 (on-policy: the first minibatch of the first
// epoch) for all four aggregations, provided the margin is aggregated with
// the same ω_τ (MarginConfig.Agg = the policy loss's Agg)
// (TestAREWMarginEqualsAdvantageCorrection; through gorgonia,
// TestGraphObjectivesAdd). The paper's E_τ[L̂] = (1/B') Σ_τ L̂_τ is the
// seq-mean-token-sum weighting; next to a token-mean policy loss it is
// stronger than λ·u by T/B' (TestAREWMarginUnderMismatchedAggregation).
// Off policy the advantage form is the margin importance-weighted and
// clipped like every other term: inside the clip range its gradient is
// r_t · ∇MarginLoss (TestAREWMarginOffPolicyIsScaledByRatio). u is copied
// to each token of a step (the spec's "step" mode), so it sums to zero over
// steps, not over tokens. MarginLoss is for teaching and tests; training
// computes Â elsewhere (the advantage kernels).
//
// # The optimiser
//
// AdamW (PyTorch's form): decoupled decay p ← p(1 − lr λ_wd), then
// m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², and p ← p − lr m̂/(√v̂ + ε)
// with the bias corrections m̂ = m/(1−β1^k), v̂ = v/(1−β2^k), which undo
// the zero start of m and v. By default only parameters of two or more
// dimensions decay (nanoGPT: not biases nor LayerNorm gains). State
// (m, v, step) exports as named float32 slices (TestAdamWHandComputedSteps,
// checked against torch.optim.AdamW; TestAdamWMinimisesQuadratic;
// TestAdamWStateRoundTrip). ClipGradNorm scales all gradients by one factor
// min(1, max/(‖g‖+1e-6)), ‖g‖ over all parameters accumulated in float64,
// keeping the update's direction (TestClipGradNormGlobal); a non-finite
// norm returns ErrNonFiniteGrad and changes nothing (TestClipGradNormNonFinite).
// Schedule: linear warm-up, then constant or cosine to a floor
// (TestScheduleCosine).
//
// # Deviations from verl, on purpose
//
//   - Dual clip is optional (PPOConfig.DualClip = 0 turns it off); verl
//     always applies it, with c = 3 by default. Set DualClip: 3 to match.
//   - An aggregation with no agent token gives loss 0 and gradient 0; verl's
//     token-mean would give 0/0 = NaN.
//   - seq-mean-token-sum-norm needs an explicit constant C; verl defaults it
//     to the padded response length of the micro-batch, which packed
//     batches do not have and which would change with the split.
//   - There is no data-parallel factor (verl's dp_size): one process.
//   - ValueConfig.ClipValue = +Inf turns value clipping off; verl always clips.
//   - The "+" straight-through KL variants (k1+, k3+) and "full" are not
//     implemented.
//   - The warm-up's first learning rate is Peak/Warmup, not 0, and the
//     floor is absolute (verl: a ratio of the peak).
//   - AdamW computes each element in float64 and stores float32; torch
//     computes in float32 (difference: float32 rounding).
//   - A non-finite gradient norm is an error and leaves the gradients alone;
//     verl zeroes them and skips the step, which is the caller's job here.
package optim
