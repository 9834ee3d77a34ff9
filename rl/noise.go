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
// DAgger puts the learner's own turns there (BaseConfig.DAgger, dagger.go);
// a scripted policy (e.g. the random one) is the noise that needs no
// trained policy in the loop. The choices draw from their own stream of (seed, split,
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

// noisePlay is the noise of a set of demonstrations (a built DemoNoise,
// or a DAgger round's learner): its policy, the kinds of turn it may take
// (indexed by tasks.Kind), its share, and draws(i), the generator of
// instance i's choices, which start makes the current one (rng).
type noisePlay struct {
	policy  tasks.Policy
	learner *learner
	kinds   [2]bool
	share   float64
	draws   func(i int) *rand.Rand
	rng     *rand.Rand
}

// takes reports whether the noise plays turn: a turn of its kinds, with
// probability share. A nil noise takes none and draws nothing.
func (n *noisePlay) takes(turn tasks.Turn) bool {
	return n != nil && n.kinds[turn.Kind] && n.rng.Float64() < n.share
}

// start readies the noise for the demonstration of instance i.
func (n *noisePlay) start(i int) error {
	n.rng = n.draws(i)
	if n.learner != nil {
		return n.learner.reset()
	}
	return nil
}

// act is the noise's turn: the scripted policy acting on the episode, or
// the learner decoding from the tokens so far.
func (n *noisePlay) act(ep tasks.Episode, turn tasks.Turn, history []tasks.Token) ([]tasks.Token, error) {
	if n.learner != nil {
		return n.learner.act(ep, turn, history, n.rng)
	}
	return n.policy.Act(ep, n.rng)
}

// NoisyDemonstrations is Demonstrations with noise (nil: none, the same
// demonstrations as Demonstrations): instance i's noise plays the task's
// noise policy with the generator of (seed, split, i). Once ctx ends it
// returns ctx's error before the next demonstration.
func NoisyDemonstrations(ctx context.Context, task tasks.Task, policy tasks.Policy, noise *DemoNoise, split tasks.Split, first, n int, seed uint64) ([]*Trajectory, error) {
	var play *noisePlay
	if noise != nil {
		if err := noise.Validate(); err != nil {
			return nil, err
		}
		play = &noisePlay{share: noise.Share, draws: func(i int) *rand.Rand {
			return derive(seed, streamNoise, uint64(split), uint64(i))
		}}
		var err error
		if play.policy, err = task.Scripted(noise.Policy); err != nil {
			return nil, fmt.Errorf("noise: %w", err)
		}
		for _, k := range []tasks.Kind{tasks.AS, tasks.BT} {
			play.kinds[k] = noise.Kind == "" || noise.Kind == k.String()
		}
	}
	return demonstrations(ctx, task, policy, play, split, first, n, seed)
}

// demonstrations plays instances first … first+n−1 of split with the
// policy, the noise (nil: none) taking its turns.
func demonstrations(ctx context.Context, task tasks.Task, policy tasks.Policy, noise *noisePlay, split tasks.Split, first, n int, seed uint64) ([]*Trajectory, error) {
	out := make([]*Trajectory, 0, n)
	for i := first; i < first+n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if noise != nil {
			if err := noise.start(i); err != nil {
				return nil, err
			}
		}
		tr, err := playDemo(task, policy, noise, split, i, derive(seed, streamSFT, uint64(split), uint64(i)))
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// PlayScripted plays a scripted policy on instance index of split and
// records the episode as a trajectory (log-probs 0): the demonstrations
// that SFT warm starts and imitation learning train on. Each turn ends with
// EOT, as a policy must learn to emit it — unless the action fills the
// turn's MaxTokens, where a rollout ends the turn without EOT, and so does
// the demonstration.
func PlayScripted(task tasks.Task, policy tasks.Policy, split tasks.Split, index int, rng *rand.Rand) (*Trajectory, error) {
	return playDemo(task, policy, nil, split, index, rng)
}

// playDemo is PlayScripted with noise (nil: none): a turn the noise takes
// is played by its policy and recorded as context, not as the agent's.
func playDemo(task tasks.Task, policy tasks.Policy, noise *noisePlay, split tasks.Split, index int, rng *rand.Rand) (*Trajectory, error) {
	ep, err := task.NewEpisode(split, index)
	if err != nil {
		return nil, err
	}
	rec := newRecorder(ep)
	for turns := 0; !ep.Done(); turns++ {
		if turns > 10000 {
			return nil, fmt.Errorf("play scripted %s: episode did not end", task.Name())
		}
		turn := ep.Next()
		agent := !noise.takes(turn)
		var action []tasks.Token
		var err error
		if agent {
			action, err = policy.Act(ep, rng)
		} else {
			action, err = noise.act(ep, turn, rec.tr.Tokens)
		}
		if err != nil {
			return nil, fmt.Errorf("play scripted %s: %w", task.Name(), err)
		}
		obs, st, err := ep.Step(action)
		if err != nil {
			return nil, fmt.Errorf("play scripted %s: %w", task.Name(), err)
		}
		toks := append([]tasks.Token(nil), action...)
		if len(toks) < turn.MaxTokens {
			toks = append(toks, tasks.EOT)
		}
		if agent {
			rec.act(toks, nil, nil, st)
		} else {
			rec.observe(toks)
		}
		rec.observe(obs)
	}
	tr := rec.finish(ep)
	if len(tr.Tokens) > task.MaxTokens() {
		return nil, fmt.Errorf("play scripted %s: %d tokens exceed the task's bound %d", task.Name(), len(tr.Tokens), task.MaxTokens())
	}
	return tr, nil
}
