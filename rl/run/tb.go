package run

import (
	"arew/rl"
	"arew/rl/run/tensorboard"
	"maps"
	"slices"
)

// The TensorBoard tags of a run's events (<run>/tb/): verl's names where
// verl logs the same quantity, ours under train/, arew/, eval/ and test/.
// eval/<mode>/<measure> is the in-training evaluation (its split is the
// study's Eval.Split), test/<mode>/<measure> the final one.

// metricScalars are one update's metrics as TensorBoard scalars.
func metricScalars(m rl.Metrics) []tensorboard.Scalar {
	active := 0.0
	if m.AREWActive {
		active = 1
	}
	return []tensorboard.Scalar{
		{Tag: "actor/pg_loss", Value: m.PolicyLoss},
		{Tag: "actor/ppo_kl", Value: m.ApproxKL},
		{Tag: "actor/pg_clipfrac", Value: m.ClipFrac},
		{Tag: "actor/pg_clipfrac_lower", Value: m.ClipFracLower},
		{Tag: "actor/entropy", Value: m.Entropy},
		{Tag: "actor/kl_loss", Value: m.RefKL},
		{Tag: "actor/grad_norm", Value: m.GradNorm},
		{Tag: "actor/lr", Value: m.LR},
		{Tag: "critic/vf_loss", Value: m.ValueLoss},
		{Tag: "critic/vf_clipfrac", Value: m.ValueClipFrac},
		{Tag: "critic/grad_norm", Value: m.CriticGradNorm},
		{Tag: "critic/lr", Value: m.CriticLR},
		{Tag: "critic/score/mean", Value: m.Reward},
		{Tag: "critic/advantages/mean", Value: m.AdvMean},
		{Tag: "critic/advantages/std", Value: m.AdvStd},
		{Tag: "response_length/mean", Value: m.ResponseLen},
		{Tag: "timing_s/gen", Value: m.RolloutSeconds},
		{Tag: "timing_s/old_log_prob", Value: m.PrepSeconds},
		{Tag: "timing_s/update_actor", Value: m.OptimSeconds},
		{Tag: "perf/rollout_tokens_per_s", Value: m.RolloutTokensPerSec},
		{Tag: "perf/train_tokens_per_s", Value: m.TrainTokensPerSec},
		{Tag: "train/success", Value: m.Success},
		{Tag: "train/as_proxy", Value: m.ASProxy},
		{Tag: "train/bt_proxy", Value: m.BTProxy},
		{Tag: "train/i_as", Value: m.IAS},
		{Tag: "train/c_bt", Value: m.CBT},
		{Tag: "train/evidence", Value: m.Evidence},
		{Tag: "train/turns", Value: m.Turns},
		{Tag: "train/malformed", Value: m.Malformed},
		{Tag: "train/truncated", Value: float64(m.Truncated)},
		{Tag: "arew/active", Value: active},
		{Tag: "arew/margin_trajectories", Value: m.AREWTrajectories},
		{Tag: "arew/mean_abs_correction", Value: m.AREWMeanAbs},
		{Tag: "arew/flipped", Value: float64(m.AREWFlipped)},
		{Tag: "arew/as_abs_correction", Value: m.AREWASAbs},
		{Tag: "arew/bt_abs_correction", Value: m.AREWBTAbs},
		{Tag: "arew/as_pos", Value: m.AREWASPos},
		{Tag: "arew/as_neg", Value: m.AREWASNeg},
		{Tag: "arew/bt_pos", Value: m.AREWBTPos},
		{Tag: "arew/bt_neg", Value: m.AREWBTNeg},
		{Tag: "arew/skipped_steps", Value: float64(m.SkippedSteps)},
	}
}

// evalScalars are an evaluation's measures under prefix ("eval" or
// "test"), per mode.
func evalScalars(prefix string, modes Modes) []tensorboard.Scalar {
	var out []tensorboard.Scalar
	for _, mode := range rl.BothModes {
		m := modes.Get(mode)
		if m == nil {
			continue
		}
		for _, r := range append(Reported, Measure{"malformed", "malformed", func(m *Measures) float64 { return float64(m.Malformed) }}) {
			out = append(out, tensorboard.Scalar{Tag: prefix + "/" + string(mode) + "/" + r.Key, Value: r.Get(m)})
		}
		for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
			out = append(out, tensorboard.Scalar{Tag: prefix + "/" + string(mode) + "/" + k, Value: float64(m.Extra[k])})
		}
	}
	return out
}
