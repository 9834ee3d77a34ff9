package rl

import (
	"context"
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// DemoNoise makes a source's demonstrations recovery demonstrations, in
// the spirit of DART and DAgger: at each turn of Kind, with probability
// Share, the scripted Policy acts in the demonstrator's place. Its turn
// stays in the trajectory as context, but it is not marked as the
// agent's, so SFT does not train on it; the demonstrator's turns after it
// are trained on, and they show how to go on from states that the
// demonstrator's own play never reaches (a poor question, a repeat).
//
// DAgger puts the learner's own turns there, which needs a trained policy
// in the loop; a scripted policy (e.g. the random one) is the noise that
// needs none. The choices draw from their own stream of (seed, split,
// instance), so a demonstration depends only on those.
type DemoNoise struct {
	Policy tasks.PolicySpec `json:"policy"`
	// Kind is the kind of turn the noise may take: "AS", "BT", or ""
	// for both.
	Kind  string  `json:"kind,omitempty"`
	Share float64 `json:"share"`
}

// Validate checks the share and the kind; the policy is checked when the
// task builds it.
func (n DemoNoise) Validate() error {
	if !(n.Share > 0 && n.Share < 1) {
		return fmt.Errorf("noise: share %v must lie strictly between 0 and 1", n.Share)
	}
	if n.Kind != "" && n.Kind != "AS" && n.Kind != "BT" {
		return fmt.Errorf("noise: kind %q (want AS, BT or empty for both)", n.Kind)
	}
	return nil
}

// noisePlay is a DemoNoise built for one demonstration: its policy, the
// kinds of turn it may take (indexed by tasks.Kind), its share and the
// generator of its choices.
type noisePlay struct {
	policy tasks.Policy
	kinds  [2]bool
	share  float64
	rng    *rand.Rand
}

// takes reports whether the noise plays turn: a turn of its kinds, with
// probability share. A nil noise takes none and draws nothing.
func (n *noisePlay) takes(turn tasks.Turn) bool {
	return n != nil && n.kinds[turn.Kind] && n.rng.Float64() < n.share
}

// NoisyDemonstrations is Demonstrations with noise (nil: none, the same
// demonstrations as Demonstrations): instance i's noise plays the task's
// noise policy with the generator of (seed, split, i). Once ctx ends it
// returns ctx's error before the next demonstration.
func NoisyDemonstrations(ctx context.Context, task tasks.Task, policy tasks.Policy, noise *DemoNoise, split tasks.Split, first, n int, seed uint64) ([]*Trajectory, error) {
	var play noisePlay
	if noise != nil {
		if err := noise.Validate(); err != nil {
			return nil, err
		}
		var err error
		if play.policy, err = task.Scripted(noise.Policy); err != nil {
			return nil, fmt.Errorf("noise: %w", err)
		}
		play.share = noise.Share
		for _, k := range []tasks.Kind{tasks.AS, tasks.BT} {
			play.kinds[k] = noise.Kind == "" || noise.Kind == k.String()
		}
	}
	out := make([]*Trajectory, 0, n)
	for i := first; i < first+n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var np *noisePlay
		if noise != nil {
			np = &play
			np.rng = derive(seed, streamNoise, uint64(split), uint64(i))
		}
		tr, err := playDemo(task, policy, np, split, i, derive(seed, streamSFT, uint64(split), uint64(i)))
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}
