package rl

import "fmt"

// MaxWorkers caps RolloutConfig.Workers: a roller keeps one decoder slot
// per worker, and more goroutines than this never help on one machine.
const MaxWorkers = 1 << 12

// checkBounds is what PPOConfig and GRPOConfig check beyond their parts'
// own Validate: the worker count, and the advantage's coefficients in
// float32 range (the advantages are float32 in the graph).
func checkBounds(r RolloutConfig, a AdvantageConfig) error {
	if r.Workers > MaxWorkers {
		return fmt.Errorf("rollout: workers must be ≤ %d, got %d", MaxWorkers, r.Workers)
	}
	if !inFloat32(a.GroupEps) {
		return fmt.Errorf("advantage: group_eps must be at most %.3g (float32), got %v", MaxRate, a.GroupEps)
	}
	if !inFloat32(a.AREW.Lambda) {
		return fmt.Errorf("advantage: arew: lambda must lie in [−%.3g, %.3g] (float32), got %v", MaxRate, MaxRate, a.AREW.Lambda)
	}
	return nil
}
