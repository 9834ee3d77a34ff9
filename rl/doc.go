// Package rl turns played episodes into parameter updates: trajectories and
// their packing, rollouts, advantage estimation (GAE, the group baseline,
// the AREW correction), the PPO, GRPO/GSPO and SFT trainers, evaluation and
// per-update metrics. The objectives themselves (clipped ratio, value loss,
// KL, GSPO, aggregation) live in optim, the networks in model, the
// advantage loops in kernels; this package wires them into one update.
//
// # One update, in order
//
//  1. Rollout (rollout.go). Roller.Play runs the
//     episodes on worker goroutines, each with its own KV-cache decoder
//     (model.Decoder) holding up to Slots episodes that advance in
//     lockstep: one Append feeds every live episode's pending tokens (its
//     prompt, its last sampled token, the environment's reply) as one
//     batch, then each samples one token from its own generator, derived
//     from (seed, update, episode index). A turn ends at EOT or at its
//     MaxTokens and goes to the environment as it is; each turn becomes a
//     Step with the environment's critique, and each sampled token keeps
//     log π at temperature 1 (TestRolloutRecordsTurns). The decoder
//     computes every sequence's rows independently of its batch mates, so
//     trajectories are bitwise the same for any number of workers or
//     slots (TestRolloutIndependentOfWorkers). A stream that reaches
//     MaxLen before the episode ends is truncated with reward 0
//     (TestRolloutTruncates). A trainer records each update's episodes
//     over the last update's trajectories (Roller.PlayInto, the same
//     trajectories as Play's: TestPlayIntoMatchesPlay), and each slot makes
//     its next episode in the memory of its last when the task can
//     (tasks.Recycler; the same trajectories as new episodes':
//     TestRecycledEpisodesMatchNewOnes).
//  2. Batch (batch.go). NewBatch packs the trajectories in prediction
//     order: prediction j reads token j and predicts token j+1, so the mask
//     marks predictions of agent tokens, and the outcome reward sits on the
//     trajectory's last agent prediction (TestNewBatchPacksInPredictionOrder);
//     a trainer packs into the last update's batch (NewBatchInto).
//  3. Old log-probs, values, reference (trainer.go, prepare). The training
//     graph's forward recomputes the old log-probs, as verl does: the
//     decoder and the graph sum in different orders (Metrics.LogpGapMax,
//     ~2e-7), and only the graph's own numbers make the ratio of the first
//     minibatch exactly 1 (TestPPOFirstMinibatchIsOnPolicy: log r = 0
//     bitwise, clip fraction 0, approx KL 0, KL to the reference 0). The
//     critic's values come from the same pass, not from the decoder during
//     the rollout: the chunk is already laid out for the graph, the rollout
//     stays policy-only (a separate critic would need a second KV cache per
//     worker), and v_old is bitwise what the critic graph computes, so the
//     value clip starts centred on it.
//  4. Advantages (advantage.go; kernels do the loops): GAE with optional
//     whitening, or the group baseline; then the AREW correction.
//  5. Optimisation (trainer.go optimise; trainer_graph.go; batch.go's rows).
//     K epochs, each over the batch in a shuffled order (its own stream).
//     A minibatch is B rows of T = MaxLen − 1 positions, one trajectory per
//     row, right-padded; the graph for (B, T) and its loss are built once
//     and refilled in place (optim's nodes read the rows' slices at each
//     run). The last, partial minibatch fills its spare rows with padding
//     (mask 0), which changes neither loss nor gradient
//     (TestPaddingRowsChangeNothing). Each minibatch is one step per
//     network: zero the gradients, run forward and backward, accumulate,
//     clip the global norm (a non-finite norm skips the step), AdamW.
//  6. Metrics (trainer.go): episode means (tasks.Summarize), minibatch
//     means of the losses and diagnostics, phase timings; JSON with NaN as
//     null (TestMetricsJSON).
//
// Same seed and configuration give the same metrics, whatever the number
// of workers (TestTrainerIsDeterministic): the rollouts, the minibatch
// order, the critique perturbation and a fresh critic's weights each draw
// from their own stream of the run seed (trainer.go, derive).
//
// After the first update, which allocates what every later one reuses
// (graph outputs, batches, trajectories, episodes, decoders), an update
// allocates little; most of what it allocates is the attention kernels'
// worker closures and the update's bookkeeping. BenchmarkPPOUpdateFloDial
// (64 episodes of flodial-easy, small preset, minibatches of 16, 2 epochs,
// a separate critic) reports it; its figures are in docs/bench.md.
//
// # From the policy gradient to the loss
//
// For a trajectory τ of agent tokens y_t in states s_t (everything before
// them), ∇ E[R(τ)] = E[Σ_t A_t ∇ log π(y_t | s_t)], where A_t is any
// advantage estimate whose baseline does not depend on y_t (it then adds
// zero in expectation: E_y[∇ log π(y)] = ∇ Σ_y π(y) = 0). optim turns this
// into the loss −A_t r_t with r_t = π/π_old, clips it (PPO) or uses the
// sequence ratio (GSPO), and derives each gradient (optim/doc.go;
// TestPPOClipHandValues, TestGSPOTokenFormEqualsSequenceForm). Here we only
// choose A.
//
// # GAE, and why observation tokens are skipped
//
// Each agent token is an action. With V_t the critic's estimate of the
// return from s_t and the reward r_t (the outcome on the last agent token),
//
//	δ_t = r_t + γ V_{t'} − V_t,     A_t = δ_t + γλ A_{t'},     R_t = A_t + V_t
//
// where t' is the next agent token (V, A = 0 after the last). With
// γ = λ = 1 (the paper's setting) the V terms telescope: A_t = outcome − V_t,
// the outcome against the critic's expectation at that token; λ = 0 gives
// the one-step TD error. Observation tokens are not actions — π did not
// choose them, so there is no log-prob to push — they are part of the
// transition from one agent token to the next, so the recursion carries V'
// and A' across them unchanged: GAE on the trajectory with them cut out
// (kernels.TestGAESkipEqualsRemoval, TestGAEMatchesDirectSum,
// TestGAEHandComputed). Whitening (verl's default) rescales A over the
// batch's agent tokens (kernels.TestMaskedWhiten). R_t is the critic's
// regression target.
//
// # The group baseline
//
// GRPO drops the critic: the G rollouts of one prompt share the baseline
// b = their mean reward, A_i = (r_i − b)/(σ + ε) (Dr.GRPO: r_i − b) on every
// agent token of rollout i. A baseline leaves the expected gradient alone
// only when it does not depend on the rollout it scores, and the group mean
// includes r_i. For Dr.GRPO (mean, no σ) the effect is exact: r_i − b =
// ((G−1)/G)·(r_i − b_{−i}), with b_{−i} the mean of the other G−1 rewards,
// which is independent of rollout i, so the expected gradient is (G−1)/G
// times the policy gradient — a constant, provided each rollout's tokens
// are weighted by a constant (seq-mean-token-sum, or Dr.GRPO's
// seq-mean-token-sum-norm; token-mean's 1/T depends on the lengths). The
// std-normalised GRPO (verl's default) divides by σ + ε, and σ depends on
// every reward of the group, r_i included: its expected gradient is a sum
// over prompts of the prompt's policy gradient times a factor that depends
// on that prompt's reward distribution and on G, not a constant multiple of
// ∇J. With 0/1 rewards and G = 8 the factor is 1.74 at success rate 0.5 and
// 2.18 at 0.1 (exact enumeration of the 2^8 outcomes); as G grows it tends
// to 1/σ_q, the prompt's reward standard deviation, so prompts whose
// rewards vary little count more, the reweighting Dr.GRPO removes. A group
// whose rewards agree teaches nothing (A = 0). Tests:
// kernels.TestGroupAdvantagesHandComputed, TestGroupBaselineProperties; TestGRPOEpisodeLayout (G rollouts of each
// prompt share a group id); TestGRPOLearnsBandit, TestGSPOLearnsBandit.
//
// # AREW: the correction Â = A + λu
//
// AREW adds λu to the advantages, u the per-step weights of the margin
// L̂(ω;τ); optim/doc.go ("AREW") defines both and derives the equality
// ∇(J + λE[L̂]) = E[Σ_t (A_t + λu_t) ∇ log π(y_t)] and its scope: it holds
// for the batch surrogate, with the sampling policy (the sampled
// trajectories) held fixed, at ratio 1 and unclipped, not for the true
// objective, whose gradient has the extra term E[L̂ ∇ log π(τ)] that the
// advantage form leaves out (optim.TestAREWMarginEqualsAdvantageCorrection,
// through gorgonia optim.TestGraphObjectivesAdd; off policy the correction
// is importance-weighted and clipped like the rest,
// optim.TestAREWMarginOffPolicyIsScaledByRatio). This package computes u
// from the steps' critiques and the kernel writes λu onto each token of its
// step (kernels.TestMarginIsTheGradientOfThePaperMargin). One-sided
// trajectories get no correction (kernels.TestMarginOneSidedIsZero).
// The correction is added after GAE and whitening, as in the released code
// (TestAdvantagesAREWStepMode; separate AS and BT margins:
// TestAdvantagesSeparateMargins; selection and perturbation of critiques:
// TestSelectCritiques, TestFlipRate). A turn the task judges token by
// token (tasks.Step.TokenZ, e.g. flodial's per-fault belief critiques)
// enters the margin as one single-token step per critique, so |P| and |N|
// count those tokens (TestNewBatchSplitsPerTokenCritiques).
//
// Why the critic's targets are untouched. u is not a reward: it is the
// gradient of an auxiliary objective that sums to zero over a trajectory's
// steps and moves likelihood between them. Put into the rewards, GAE would
// carry each step's u back to every earlier token (with γλ = 1 a token's
// advantage would include the sum of all later corrections), smearing the
// per-step credit that is AREW's point, and the critic would learn to
// predict it, so the next baseline would subtract it again. So Returns stay
// A_GAE + V, computed before the correction (TestAdvantagesAREWStepMode
// checks them), and the importance ratio, clipping, KL and reward are as in
// vanilla PPO/GRPO/GSPO.
//
// # SFT
//
// Demonstrations (PlayScripted; Demonstrations) are trajectories whose
// agent tokens a scripted policy chose. SFT minimises the token-mean
// negative log-likelihood of those tokens, −(1/N) Σ log π(y_t | s_t), on the
// same (B, T) rows; prompts and observations are context only. Held-out
// accuracy is the fraction of agent tokens that are the policy's argmax
// given the demonstration's prefix (TestSFTLearnsBanditDemonstrations:
// 0.19 → 1.0; TestSFTOnFloDialLowersLoss). Only the rows the loss reads
// matter, so SFTConfig can cut the graph: Bucket runs each minibatch in a
// graph as long as its own longest demonstration (padding is masked and
// attention causal, so the rows cut off change nothing the loss reads),
// and HeadRows runs the last block and the head at the agent predictions
// only (the head-rows graph of model/doc.go). Both give the full graph's
// loss and gradient to float32 rounding (TestSFTCutGraphsAreTheFullGraph),
// not bitwise, so they are opt-ins. Recovery demonstrations
// (DemoNoise, NoisyDemonstrations) let another scripted policy play a
// share of the turns as context only, so the states the trained tokens
// follow are not all the demonstrator's own (TestNoisyDemonstrations).
// DAgger (BaseConfig.DAgger, dagger.go) puts the policy being trained in
// that place: after the SFT epochs, each round plays new instances with
// the learner writing a share of the turns, decoded from the episode's
// tokens so far exactly as a rollout decodes them
// (TestLearnerMatchesRollout), labels the states its play leads to with
// the demonstrator's turns, and trains on the aggregate (TestBaseDAgger).
//
// # Resume
//
// A trainer's whole state is its weights (policy, separate critic, the
// frozen KL reference), both AdamW states (moments and step count) and two
// counters: the update index and the skip guard's run of skipped steps.
// Nothing else carries from one update to the next: every random draw
// comes from a generator derived afresh from (seed, stream, update, item)
// (derive), the instances an update plays are a function of its
// index, and so is the learning rate. WriteState writes that state as
// files into a folder, LoadState reads them back; the run layer keeps
// them as one checkpoint set (rl/run: a manifest naming every file with
// its update, size and SHA-256, written last, and an atomic replacement of
// the last set, so a set is never read mixed). N updates equal k updates,
// WriteState, and a fresh trainer loaded from those files running the
// other N − k, bitwise in every metric but the timings and in the final
// weights, for PPO (with a KL reference, an entropy bonus and a separate
// critic), shared-critic PPO and GRPO (with a warm-up and cosine schedule
// and a wrapping instance cursor): TestResumeIsBitwise; the refusals:
// TestLoadRefusesAnotherTrainersState.
//
// # Smoke tests
//
// On a bandit ("the prompt names a token; reply with it", chance 1/8),
// PPO with a separate or shared critic, GRPO and GSPO each raise the
// sampled test reward from ~0.12 to > 0.8 in 20–35 updates (< 150
// optimiser steps, < 0.5 s each): TestPPOLearnsBandit,
// TestPPOSharedCriticLearnsBandit, TestGRPOLearnsBandit,
// TestGSPOLearnsBandit. Full updates with AREW (and KL, entropy, a shared
// critic, Dr.GRPO, separate margins) run on flodial-easy with finite
// metrics: TestTrainersRunOnFloDial.
package rl
