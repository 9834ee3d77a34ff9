package rl

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// recorder builds a Trajectory while an episode is played: the prompt, then
// per turn the agent's tokens plus EOT (marked as the agent's, one Step)
// and the observation.
type recorder struct {
	tr     *Trajectory
	masked bool // constrained decoding: keep Trajectory.Allowed
}

func newRecorder(ep tasks.Episode) *recorder {
	r := &recorder{tr: &Trajectory{}}
	r.observe(ep.Prompt())
	return r
}

// observe appends environment tokens.
func (r *recorder) observe(obs []tasks.Token) {
	for _, t := range obs {
		r.tr.Tokens = append(r.tr.Tokens, t)
		r.tr.Agent = append(r.tr.Agent, false)
		r.tr.Logp = append(r.tr.Logp, 0)
		if r.masked {
			r.tr.Allowed = append(r.tr.Allowed, nil)
		}
	}
}

// act appends one agent turn (tokens as generated, EOT included when the
// agent emitted it) with their log-probs and, when masked, their allowed
// sets (copied), and the judged step.
func (r *recorder) act(tokens []tasks.Token, logp []float32, allowed [][]tasks.Token, st tasks.Step) {
	start := len(r.tr.Tokens)
	for i, t := range tokens {
		r.tr.Tokens = append(r.tr.Tokens, t)
		r.tr.Agent = append(r.tr.Agent, true)
		lp := float32(0)
		if logp != nil {
			lp = logp[i]
		}
		r.tr.Logp = append(r.tr.Logp, lp)
		if r.masked {
			// A trajectory recorded over keeps its earlier sets' memory.
			var mem []tasks.Token
			if k := len(r.tr.Allowed); k < cap(r.tr.Allowed) {
				mem = r.tr.Allowed[:k+1][k][:0]
			}
			var set []tasks.Token
			if allowed != nil && len(allowed[i]) > 0 {
				set = append(mem, allowed[i]...)
			}
			r.tr.Allowed = append(r.tr.Allowed, set)
		}
	}
	var tokenZ []int8 // a task's per-token critiques; Trajectory.Validate checks their count
	if len(st.TokenZ) > 0 {
		// A trajectory recorded over (Trajectory.reset) still holds its
		// earlier steps past its length: the step recorded at this index
		// last time lends its array.
		var mem []int8
		if i := len(r.tr.Steps); i < cap(r.tr.Steps) {
			mem = r.tr.Steps[:i+1][i].TokenZ[:0]
		}
		tokenZ = append(mem, st.TokenZ...)
	}
	r.tr.Steps = append(r.tr.Steps, Step{Start: start, End: len(r.tr.Tokens), Kind: st.Kind, Z: st.Z,
		TokenZ: tokenZ, Final: st.Final, Malformed: st.Malformed})
}

// finish records the outcome.
func (r *recorder) finish(ep tasks.Episode) *Trajectory {
	m := ep.Measures()
	r.tr.Reward = m.Reward
	r.tr.Measures = m
	return r.tr
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
