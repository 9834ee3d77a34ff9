package act

import (
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/rl"
	"arew/tasks/textworld"
)

// The sources of the ACT stage's actor term (ActorTerm.Source).
const (
	// ActorExpert: the expert's action at each training state, the IL
	// loss mixed into the stage.
	ActorExpert = "expert"
	// ActorAnchor: an action sampled at each training state, once when
	// the stage begins, from the policy the stage starts from (temperature
	// 1, under the run's decoding): a Monte-Carlo forward
	// KL(π_start ‖ π_θ) on the actor's prompt.
	ActorAnchor = "anchor"
	// ActorGreedy: the start policy's greedy action at each training
	// state under the run's decoding, drawn when the stage begins: it
	// holds the actor's decisions (what greedy evaluation plays), not its
	// distribution, and has no sampling noise.
	ActorGreedy = "greedy"
	// ActorKL: no SFT steps; β·KL(π_start ‖ π_θ) over each training
	// state's listed commands under the trie mask, exact, added to every
	// GRPO step's loss (actorKL).
	ActorKL = "kl"
)

// ActorTerm is a term on the actor's own prompt (the state alone,
// answered by an action) mixed into the ACT stage. The stage's GRPO trains
// only the critic prompt (the candidates, then the state); this term is
// what holds, or teaches, the actor's prompt (docs/act.md §15–16, doc.go
// "The actor term").
//
// With ActorKL it is a KL anchor in the stage's loss: at every GRPO
// policy step, Beta times the mean over MiniBatch training states (taken
// in turn from one order drawn from the stage's seed) of
// KL(π_start ‖ π_θ) over the state's listed commands, π_start the model
// the stage starts from; Steps and LR are not used and must be 0.
//
// With the other sources it is an SFT term: after each GRPO update,
// Steps optimiser steps of MiniBatch examples, the examples taken in turn
// from one order of the term's data drawn from the stage's seed.
//
// The steps are rl's SFT (token-mean NLL of the action and EOT) with an
// optimiser of their own at LR, constant (0: the stage's GRPO rate). With
// ActorAnchor the loss is −E_{a∼π_start}[log π_θ(a | s)] = KL(π_start ‖
// π_θ) + const at each state, whose expected gradient is zero where
// π_θ = π_start; one sample per state estimates it.
type ActorTerm struct {
	Source    string  `json:"source"`
	Steps     int     `json:"steps"`
	MiniBatch int     `json:"mini_batch"`
	LR        float64 `json:"lr"`
	Beta      float64 `json:"beta,omitempty"`
}

// Validate reports the first bad field.
func (a ActorTerm) Validate() error {
	if a.Source == ActorKL {
		if !(a.Beta > 0) || a.Beta > rl.MaxRate || a.MiniBatch < 1 {
			return fmt.Errorf("actor term: the KL anchor needs 0 < beta ≤ %.3g and mini_batch ≥ 1; got %v, %d", rl.MaxRate, a.Beta, a.MiniBatch)
		}
		if a.Steps != 0 || a.LR != 0 {
			return fmt.Errorf("actor term: the KL anchor is in the GRPO steps' loss and takes no steps or lr of its own; got %d, %v", a.Steps, a.LR)
		}
		return nil
	}
	if a.Source != ActorExpert && a.Source != ActorAnchor && a.Source != ActorGreedy {
		return fmt.Errorf("actor term: source must be %q, %q, %q or %q, got %q", ActorExpert, ActorAnchor, ActorGreedy, ActorKL, a.Source)
	}
	if a.Beta != 0 {
		return fmt.Errorf("actor term: beta is the KL anchor's (source %q) only; got %v with source %q", ActorKL, a.Beta, a.Source)
	}
	if a.Steps < 1 || a.MiniBatch < 1 || !(a.LR >= 0) || a.LR > rl.MaxRate {
		return fmt.Errorf("actor term: need steps ≥ 1, mini_batch ≥ 1, 0 ≤ lr ≤ %.3g; got %d, %d, %v", rl.MaxRate, a.Steps, a.MiniBatch, a.LR)
	}
	return nil
}

// ActorData is the term's examples at the expert pairs' states: the
// expert's actions (ActorExpert), or one action per state from start under
// decoding d, sampled with rng (ActorAnchor) or greedy (ActorGreedy); a
// state whose action does not end within maxAction tokens is left out.
func ActorData(a ActorTerm, env *Env, d Decoding, start *model.Model, pairs []textworld.Pair, maxAction int, rng *rand.Rand) ([]*rl.Trajectory, error) {
	switch a.Source {
	case ActorExpert:
		return ILData(env.Vocab, pairs), nil
	case ActorKL:
		return nil, fmt.Errorf("actor term: the KL anchor has no SFT examples")
	}
	temperature := 1.0
	if a.Source == ActorGreedy {
		temperature, rng = 0, nil
	}
	p, err := NewEnvPolicy("start", start, env, d, maxAction, temperature)
	if err != nil {
		return nil, err
	}
	out := make([]*rl.Trajectory, 0, len(pairs))
	for _, pr := range pairs {
		if act, ok := p.Propose(pr.State, rng); ok {
			out = append(out, Demonstration(pr.State.Tokens(env.Vocab), act))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("actor term: no sampled action ended in time")
	}
	return out, nil
}

// actorStepper runs the term's steps on m, the model the stage trains.
type actorStepper struct {
	sft    *rl.SFT
	data   []*rl.Trajectory
	order  []int
	next   int
	window []*rl.Trajectory
}

// newActorStepper builds the term's SFT on m (trained in place) for data;
// lr is the stage's GRPO rate, used when a.LR is 0.
func newActorStepper(a ActorTerm, m *model.Model, data []*rl.Trajectory, lr float64, seed uint64) (*actorStepper, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("actor term: no examples")
	}
	cfg := rl.DefaultSFTConfig()
	cfg.Seed, cfg.Epochs, cfg.MiniBatch, cfg.MaxLen = seed, 1, a.MiniBatch, LongestTrajectory(data)
	cfg.Optim.LR = lr
	if a.LR > 0 {
		cfg.Optim.LR = a.LR
	}
	if cfg.MaxLen > m.Config.Context {
		return nil, fmt.Errorf("actor term: an example of %d tokens exceeds the context %d", cfg.MaxLen, m.Config.Context)
	}
	s, err := rl.NewSFT(m, cfg)
	if err != nil {
		return nil, fmt.Errorf("actor term: %w", err)
	}
	return &actorStepper{sft: s, data: data, order: rand.New(rand.NewPCG(seed, 0xac7)).Perm(len(data)),
		window: make([]*rl.Trajectory, a.Steps*a.MiniBatch)}, nil
}

// step makes the term's steps on the next window of examples and returns
// their mean loss.
func (s *actorStepper) step() (float64, error) {
	for i := range s.window {
		s.window[i] = s.data[s.order[s.next%len(s.data)]]
		s.next++
	}
	m, err := s.sft.Epoch(s.window)
	if err != nil {
		return 0, fmt.Errorf("actor term: %w", err)
	}
	return m.TrainLoss, nil
}

func (s *actorStepper) Close() { s.sft.Close() }
