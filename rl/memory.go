package rl

import (
	"bytes"
	"runtime"
	"strconv"

	"arew/engine"
	"arew/model"
)

// Memory estimates: coarse estimates, in bytes, of what a trainer, an
// evaluation or SFT holds at its peak, so that a size that cannot fit
// (a billion episodes, a billion decoder slots) is refused when the
// configuration is checked, with a clear error, instead of running out of
// memory after the run has started. They count the terms that grow with
// the configured sizes, each with a generous constant:
//
//   - a trajectory of L tokens and its packed batch rows: 1 KiB + 128·L B;
//   - a rollout worker's KV-cache decoder of S slots:
//     S · (2·Layers·Context·C + Vocab) float32s;
//   - a training graph of B rows of T positions: 3 · B·T ·
//     (Layers·(16·C + 2·MLP + Heads·T) + 4·Vocab) float32s (the values,
//     the gradients and the framework's copies);
//   - a network's parameters with their gradients and AdamW moments:
//     4 · NumParams float32s.
//
// Everything is computed in float64, so no size overflows the estimate.
// They are guards against sizes off by orders of magnitude, not a
// profile: a small-preset run of 256 demonstrations and 64 episodes per
// update is estimated at 0.37 GiB and peaked at 0.39 GiB resident.
// TestMemoryEstimates checks them against the configured sizes.

const (
	trajectoryFixed    = 1 << 10
	trajectoryPerToken = 128
	bytesPerFloat      = 4
)

// trajectoryMemory is the estimate for n trajectories of up to maxLen tokens.
func trajectoryMemory(n, maxLen int) float64 {
	return float64(n) * (trajectoryFixed + trajectoryPerToken*float64(maxLen))
}

// decoderMemory is one KV-cache decoder with slots sequences.
func decoderMemory(c model.Config, slots int) float64 {
	return float64(slots) * (2*float64(c.Layers)*float64(c.Context)*float64(c.DModel) + float64(c.Vocab)) * bytesPerFloat
}

// graphMemory is a training graph of B rows of T positions.
func graphMemory(c model.Config, B, T int) float64 {
	perPos := float64(c.Layers)*(16*float64(c.DModel)+2*float64(c.MLP)+float64(c.Heads)*float64(T)) + 4*float64(c.Vocab)
	return 3 * float64(B) * float64(T) * perPos * bytesPerFloat
}

// paramMemory is a network's weights, gradients and AdamW moments.
func paramMemory(c model.Config) float64 {
	C, M, V, L := float64(c.DModel), float64(c.MLP), float64(c.Vocab), float64(c.Layers)
	n := V*C + float64(c.Context)*C + L*(12*C*C+M*2*C+13*C+M) + 2*C + V*C + C + 1
	return 4 * n * bytesPerFloat
}

// MemoryEstimate is the estimate (see above) for playing episodes
// rollouts of at most maxLen tokens with policy: the trajectories and the
// decoders of the workers that play them.
func (c RolloutConfig) MemoryEstimate(policy model.Config, maxLen, episodes int) float64 {
	w := c.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, episodes)
	return trajectoryMemory(episodes, maxLen) + float64(w)*decoderMemory(policy, c.Slots)
}

// MemoryEstimate is the estimate for an evaluation of cfg.Episodes.
func (c EvalConfig) MemoryEstimate(policy model.Config, maxLen int) float64 {
	return c.Rollout.MemoryEstimate(policy, maxLen, c.Episodes)
}

// MemoryEstimate is the estimate for one PPO update with policy (and its
// separate critic, reference policy) on rollouts of at most maxLen tokens.
func (c PPOConfig) MemoryEstimate(policy model.Config, maxLen int) float64 {
	nets := 1.0
	if c.Critic.Mode == CriticSeparate {
		nets++
	}
	if c.Policy.KLCoef > 0 {
		nets++
	}
	B := min(c.Policy.MiniBatch, c.Episodes)
	return c.Rollout.MemoryEstimate(policy, maxLen, c.Episodes) +
		nets*(paramMemory(policy)+graphMemory(policy, B, maxLen-1))
}

// MemoryEstimate is the estimate for one GRPO or GSPO update.
func (c GRPOConfig) MemoryEstimate(policy model.Config, maxLen int) float64 {
	n := float64(c.Prompts) * float64(c.GroupSize)
	episodes := int(min(n, 1<<62))
	nets := 1.0
	if c.Policy.KLCoef > 0 {
		nets++
	}
	B := min(c.Policy.MiniBatch, episodes)
	return c.Rollout.MemoryEstimate(policy, maxLen, episodes) +
		nets*(paramMemory(policy)+graphMemory(policy, B, maxLen-1))
}

// MemoryEstimate is the estimate for SFT of policy on demos
// demonstrations of at most maxLen tokens (the training and the held-out
// ones together).
func (c SFTConfig) MemoryEstimate(policy model.Config, maxLen, demos int) float64 {
	return trajectoryMemory(demos, maxLen) + paramMemory(policy) + graphMemory(policy, c.MiniBatch, maxLen-1)
}

// fallbackMemory is the memory MachineMemory assumes when the machine's
// is unknown.
const fallbackMemory = 16 << 30

// MachineMemory is the machine's physical memory in bytes: MemTotal of
// /proc/meminfo where there is one, else 16 GiB.
func MachineMemory() float64 {
	data, err := engine.ReadFile("/proc/meminfo", 1<<16)
	if err != nil {
		return fallbackMemory
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			if err == nil && kb > 0 {
				return kb * 1024
			}
		}
	}
	return fallbackMemory
}
