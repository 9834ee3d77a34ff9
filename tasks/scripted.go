package tasks

import (
	"fmt"
	"math/rand/v2"
)

// ScriptedTurns is task with every turn of one kind played by a scripted
// policy: the hybrid evaluation that tells the two skills apart (docs/
// arew.md §8, "Capability: measured"). With kind AS and the strong policy,
// a learner states the beliefs after the strong policy's queries, so its
// success measures the belief skill alone.
//
// The token stream is the task's own: the prompt of an episode is the
// task's prompt followed by the scripted turns before the learner's first
// turn (each its action, EOT and the observation), and each observation is
// the task's followed by the scripted turns after it. So the learner reads
// exactly what it would had it played those turns itself. Next, Done,
// Steps and Measures are the task's episode's: its steps and measures
// count the scripted turns too (a strong query's AS proxy is 1).
//
// Instance i's scripted choices are drawn from a generator seeded with
// (seed, i), as tasks.Evaluate seeds them, so an evaluation is reproducible
// and does not depend on the order episodes are played in.
func ScriptedTurns(task Task, spec PolicySpec, kind Kind, seed uint64) (Task, error) {
	policy, err := task.Scripted(spec)
	if err != nil {
		return nil, err
	}
	return &scriptedTask{Task: task, policy: policy, kind: kind, seed: seed}, nil
}

type scriptedTask struct {
	Task
	policy Policy
	kind   Kind
	seed   uint64
}

// Name is the task's name and who plays which turns: "pe-f-d6 [AS: strong]".
func (s *scriptedTask) Name() string {
	return fmt.Sprintf("%s [%s: %s]", s.Task.Name(), s.kind, s.policy.Name())
}

// NewEpisode makes the task's instance and plays its scripted turns up to
// the learner's first.
func (s *scriptedTask) NewEpisode(split Split, index int) (Episode, error) {
	ep, err := s.Task.NewEpisode(split, index)
	if err != nil {
		return nil, err
	}
	e := &scriptedEpisode{Episode: ep, task: s, rng: rand.New(rand.NewPCG(s.seed, uint64(index)))}
	if e.prompt, err = e.playScripted(append([]Token(nil), ep.Prompt()...)); err != nil {
		return nil, err
	}
	return e, nil
}

type scriptedEpisode struct {
	Episode
	task   *scriptedTask
	rng    *rand.Rand
	prompt []Token
}

// Prompt is the task's prompt and the scripted turns before the learner's
// first.
func (e *scriptedEpisode) Prompt() []Token { return e.prompt }

// Step judges the learner's turn and plays the scripted turns after it.
func (e *scriptedEpisode) Step(action []Token) ([]Token, Step, error) {
	obs, st, err := e.Episode.Step(action)
	if err != nil {
		return nil, st, err
	}
	out, err := e.playScripted(append([]Token(nil), obs...))
	return out, st, err
}

// playScripted plays the scripted policy while the episode runs and its
// turn is of the scripted kind, appending each turn's action, EOT and
// observation to out. Every turn adds at least EOT, so a task that never
// hands the learner a turn is caught at its MaxTokens.
func (e *scriptedEpisode) playScripted(out []Token) ([]Token, error) {
	for !e.Episode.Done() && e.Episode.Next().Kind == e.task.kind {
		if len(out) > e.task.MaxTokens() {
			return nil, fmt.Errorf("%s: scripted turns past the task's %d tokens", e.task.Name(), e.task.MaxTokens())
		}
		a, err := e.task.policy.Act(e.Episode, e.rng)
		if err != nil {
			return nil, fmt.Errorf("%s: act: %w", e.task.Name(), err)
		}
		obs, _, err := e.Episode.Step(a)
		if err != nil {
			return nil, fmt.Errorf("%s: step: %w", e.task.Name(), err)
		}
		out = append(append(append(out, a...), EOT), obs...)
	}
	return out, nil
}

// HasTurns reports whether task hands out turns of kind: whether an
// episode of it, validation instance 0 played by its strong policy, has a
// step of that kind (telecom has no BT turn; nothing for its hybrid to
// play).
func HasTurns(task Task, kind Kind) (bool, error) {
	policy, err := task.Scripted(PolicySpec{Kind: "strong"})
	if err != nil {
		return false, err
	}
	ep, err := task.NewEpisode(Val, 0)
	if err != nil {
		return false, err
	}
	if _, err := Play(ep, policy, rand.New(rand.NewPCG(1, 0)), task.MaxTokens()); err != nil {
		return false, err
	}
	for _, s := range ep.Steps() {
		if s.Kind == kind {
			return true, nil
		}
	}
	return false, nil
}
