package rl

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
)

// Step is one agent turn inside a trajectory: the half-open span of its
// tokens in Trajectory.Tokens (the agent's tokens of the turn, EOT
// included), its kind, and the environment's critique. TokenZ, when the
// task judges the turn token by token (tasks.Step.TokenZ), holds one
// critique per token from Start; the batch then makes each of those
// tokens a step of its own for AREW.
type Step struct {
	Start, End int
	Kind       tasks.Kind
	Z          int8
	TokenZ     []int8
	Final      bool
	Malformed  bool
}

// Trajectory is one played episode as the trainers see it: a single token
// sequence in which the agent's tokens are marked.
//
//	Tokens (L): prompt, then per turn the agent's tokens and the observation
//	Agent  (L): Agent[t] — token t was sampled by the policy (trained)
//	Logp   (L): the sampling log-prob of each agent token (0 elsewhere)
//	Allowed (L or empty): under constrained decoding (MaskedTask), the
//	         tokens the agent was allowed at each agent token (nil
//	         elsewhere, and nil for an unconstrained token); empty for a
//	         task that is not masked
type Trajectory struct {
	Tokens   []int32
	Agent    []bool
	Logp     []float32
	Allowed  [][]tasks.Token
	Steps    []Step
	Reward   float64        // the outcome reward
	Measures tasks.Measures // the episode's measures (success, proxies, I_AS, …)
	// Group is the index of the prompt (instance) this trajectory was sampled
	// for within its batch: GRPO compares trajectories of the same group.
	Group int
	// Truncated: the context filled up before the episode ended.
	Truncated bool
}

// reset empties t for a new episode, keeping its slices' memory.
func (t *Trajectory) reset() {
	*t = Trajectory{Tokens: t.Tokens[:0], Agent: t.Agent[:0], Logp: t.Logp[:0], Allowed: t.Allowed[:0], Steps: t.Steps[:0]}
}

// Validate checks the invariants the packing relies on.
func (t *Trajectory) Validate() error {
	L := len(t.Tokens)
	if L < 2 {
		return fmt.Errorf("trajectory: %d tokens; need a prompt and at least one agent token", L)
	}
	if len(t.Agent) != L || len(t.Logp) != L {
		return fmt.Errorf("trajectory: %d tokens but %d agent flags and %d log-probs", L, len(t.Agent), len(t.Logp))
	}
	if len(t.Allowed) != 0 && len(t.Allowed) != L {
		return fmt.Errorf("trajectory: %d tokens but %d allowed sets", L, len(t.Allowed))
	}
	if t.Agent[0] {
		return fmt.Errorf("trajectory: token 0 is marked as the agent's; the prompt comes first")
	}
	prev := 0
	for i, s := range t.Steps {
		if s.Start < prev || s.End < s.Start || s.End > L {
			return fmt.Errorf("trajectory: step %d spans [%d, %d), want ordered, non-overlapping spans inside [1, %d)", i, s.Start, s.End, L)
		}
		if s.Start < 1 {
			return fmt.Errorf("trajectory: step %d starts at token 0", i)
		}
		if s.Z < -1 || s.Z > 1 {
			return fmt.Errorf("trajectory: step %d has critique %d", i, s.Z)
		}
		if len(s.TokenZ) > s.End-s.Start {
			return fmt.Errorf("trajectory: step %d has %d per-token critiques for %d tokens", i, len(s.TokenZ), s.End-s.Start)
		}
		for _, z := range s.TokenZ {
			if z < -1 || z > 1 {
				return fmt.Errorf("trajectory: step %d has per-token critique %d", i, z)
			}
		}
		for p := s.Start; p < s.End; p++ {
			if !t.Agent[p] {
				return fmt.Errorf("trajectory: step %d covers token %d, which is not the agent's", i, p)
			}
		}
		prev = s.End
	}
	return nil
}

// NumAgentTokens counts the trained tokens.
func (t *Trajectory) NumAgentTokens() int {
	n := 0
	for _, a := range t.Agent {
		if a {
			n++
		}
	}
	return n
}

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
