package rl

import (
	"fmt"

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
