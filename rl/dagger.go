package rl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"arew/model"
	"arew/tasks"
)

// DAggerConfig continues a base build with rounds of DAgger (Ross, Gordon
// and Bagnell, 2011) after its SFT epochs. A round plays Demos new train
// instances of one source (Source; by default the last, the one a
// curriculum ends on): at each turn, with probability Share the policy
// being trained (the learner) writes the turn, decoded from the episode's
// tokens so far with Sampler, and otherwise the source's scripted policy
// does. The learner's turns stay in the trajectory as context and are not
// trained on (DemoNoise's rule); the scripted policy's turns are, and they
// are its answer at the states the learner's own play leads to (after its
// repeated question, its poor guess), which the scripted policy's own
// demonstrations never visit. The round then trains Epochs SFT epochs on
// the aggregate: what the last SFT epoch trained on, and every round's
// demonstrations so far, shuffled together.
//
// In DAgger's terms the round's policy is the mixture β·π* + (1−β)·π̂ with
// β = 1 − Share, held fixed, and only the expert's own turns are labels.
type DAggerConfig struct {
	Source  string        `json:"source,omitempty"`
	Rounds  int           `json:"rounds"`
	Demos   int           `json:"demos"`
	Share   float64       `json:"share"`
	Epochs  int           `json:"epochs"`
	Sampler SamplerConfig `json:"sampler"`
}

// Validate checks the counts, the share and the sampler.
func (c DAggerConfig) Validate() error {
	if c.Rounds < 1 || c.Demos < 1 || c.Epochs < 1 {
		return fmt.Errorf("dagger: rounds, demos and epochs must be ≥ 1, got %d, %d, %d", c.Rounds, c.Demos, c.Epochs)
	}
	if !(c.Share > 0 && c.Share < 1) {
		return fmt.Errorf("dagger: share %v must lie strictly between 0 and 1", c.Share)
	}
	if err := c.Sampler.sampler().Validate(); err != nil {
		return fmt.Errorf("dagger: %w", err)
	}
	return nil
}

// DAggerRound is what a round's data collection did: its demonstrations,
// the turns the learner and the scripted policy wrote, the mixture's
// success, malformed turns and repeats, and the time it took.
type DAggerRound struct {
	Round        int     `json:"round"` // counted from 1
	Demos        int     `json:"demos"`
	LearnerTurns int     `json:"learner_turns"`
	ExpertTurns  int     `json:"expert_turns"`
	Success      float64 `json:"success"`   // of the mixture's episodes
	Malformed    float64 `json:"malformed"` // turns per episode (the learner's: the scripted policy writes none)
	Repeats      float64 `json:"repeats"`   // questions asked again, per episode
	Seconds      float64 `json:"seconds"`
}

// learner is the policy being trained, writing DAgger's noise turns: it
// decodes one turn at a time from the episode's token history, feeding its
// one-slot decoder only the tokens it has not read yet, and picks each
// token as a rollout does (sampleAllowed).
type learner struct {
	dec     *model.Decoder
	smp     *model.Sampler
	task    tasks.Task
	fed     int // tokens of the history the decoder holds
	scratch []float32
}

// newLearner decodes with policy's current weights (a later optimiser
// step needs a new learner) on task.
func newLearner(policy *model.Model, task tasks.Task, s SamplerConfig) (*learner, error) {
	d, err := policy.NewDecoder(1)
	if err != nil {
		return nil, fmt.Errorf("dagger: %w", err)
	}
	return &learner{dec: d, smp: s.sampler(), task: task}, nil
}

// reset empties the decoder for a new episode.
func (l *learner) reset() error {
	l.fed = 0
	return l.dec.Reset(0)
}

// act writes the learner's turn after history (the episode's tokens so
// far, its earlier turns included): tokens sampled one by one until EOT or
// the turn's MaxTokens, under the task's mask when it has one. It returns
// the action, EOT dropped; the decoder then holds every token of the turn
// but the last, which the next call reads with the reply.
func (l *learner) act(ep tasks.Episode, turn tasks.Turn, history []tasks.Token, rng *rand.Rand) ([]tasks.Token, error) {
	if l.fed >= len(history) {
		return nil, fmt.Errorf("dagger: the learner has read %d tokens of a history of %d", l.fed, len(history))
	}
	masked, err := maskedEpisode(l.task, ep)
	if err != nil {
		return nil, fmt.Errorf("dagger: %w", err)
	}
	row, err := l.dec.Append([]int{0}, [][]int32{history[l.fed:]})
	if err != nil {
		return nil, fmt.Errorf("dagger: %w", err)
	}
	l.fed = len(history)
	var toks []tasks.Token
	for {
		var allowed []tasks.Token
		if masked != nil {
			allowed = masked.Allowed(toks)
		}
		s, err := sampleAllowed(l.smp, rng, row, allowed, &l.scratch)
		if err != nil {
			return nil, fmt.Errorf("dagger: %w", err)
		}
		toks = append(toks, s.Token)
		if s.Token == tasks.EOT || len(toks) == turn.MaxTokens {
			break
		}
		if row, err = l.dec.Append([]int{0}, [][]int32{{s.Token}}); err != nil {
			return nil, fmt.Errorf("dagger: %w", err)
		}
		l.fed++
	}
	if toks[len(toks)-1] == tasks.EOT {
		toks = toks[:len(toks)-1]
	}
	return toks, nil
}

// daggerDemonstrations is one round's data: instances first … first+n−1
// of the train split played by source's scripted policy with the learner
// (the policy as it is now) taking a share of the turns, instance i's
// choices drawn from (seed, round, i).
func daggerDemonstrations(ctx context.Context, src BaseSource, policy *model.Model, cfg DAggerConfig, round, first int, seed uint64) ([]*Trajectory, DAggerRound, error) {
	start := time.Now()
	l, err := newLearner(policy, src.Task, cfg.Sampler)
	if err != nil {
		return nil, DAggerRound{}, err
	}
	play := &noisePlay{learner: l, kinds: [2]bool{true, true}, share: cfg.Share, draws: func(i int) *rand.Rand {
		return derive(seed, streamDAgger, uint64(round), uint64(i))
	}}
	out, err := demonstrations(ctx, src.Task, src.Policy, play, tasks.Train, first, cfg.Demos, seed)
	if err != nil {
		return nil, DAggerRound{}, err
	}
	ms := make([]tasks.Measures, len(out))
	r := DAggerRound{Round: round, Demos: len(out)}
	for i, tr := range out {
		ms[i] = tr.Measures
		r.ExpertTurns += len(tr.Steps)
		r.LearnerTurns += tr.Measures.Turns - len(tr.Steps)
	}
	sum := tasks.Summarize(ms)
	r.Success, r.Malformed, r.Repeats = sum.Success, sum.Malformed, sum.Repeats
	r.Seconds = time.Since(start).Seconds()
	return out, r, nil
}
