package act

import (
	"context"
	"fmt"
	"math/rand/v2"

	"arew/model"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// Demonstration is a supervised example as rl's SFT takes it: prompt
// (context), then target and EOT (the agent's tokens, which are learnt).
func Demonstration(prompt, target []tasks.Token) *rl.Trajectory {
	n := len(prompt) + len(target) + 1
	tr := &rl.Trajectory{Tokens: make([]int32, 0, n), Agent: make([]bool, n), Logp: make([]float32, n)}
	tr.Tokens = append(append(append(tr.Tokens, prompt...), target...), tasks.EOT)
	for i := len(prompt); i < n; i++ {
		tr.Agent[i] = true
	}
	tr.Steps = []rl.Step{{Start: len(prompt), End: n, Kind: tasks.AS, Final: true}}
	return tr
}

// ILData is the imitation data: State.Tokens → expert action, EOT.
func ILData(v *tasks.Vocab, pairs []textworld.Pair) []*rl.Trajectory {
	out := make([]*rl.Trajectory, len(pairs))
	for i, p := range pairs {
		out[i] = Demonstration(p.State.Tokens(v), p.Expert)
	}
	return out
}

// ReflectionData is the Early Experience data (self-reflection variant):
// for each critic example, the state without its final <act>, then the
// templated reflection on the two observed outcomes, <act> and the
// expert's action. The model learns to write why the expert's action is
// better and then to take it.
func ReflectionData(v *tasks.Vocab, data []CriticExample) []*rl.Trajectory {
	out := make([]*rl.Trajectory, 0, len(data))
	act := v.ID("<act>")
	for _, c := range data {
		prompt := c.State.Tokens(v)
		prompt = prompt[:len(prompt)-1]
		target := textworld.Reflection(v, c.Expert, c.ExpertObs, c.Alt, c.AltObs)
		target = append(append(target, act), c.Expert...)
		out = append(out, Demonstration(prompt, target))
	}
	return out
}

// LongestTrajectory is the longest token sequence of trs.
func LongestTrajectory(trs []*rl.Trajectory) int {
	n := 0
	for _, t := range trs {
		n = max(n, len(t.Tokens))
	}
	return n
}

// TrainSFT fine-tunes a copy of init on train (rl.SFT with MaxLen the
// longest example) and returns it with the per-epoch metrics.
func TrainSFT(ctx context.Context, init *model.Model, train []*rl.Trajectory, cfg rl.SFTConfig) (*model.Model, []rl.SFTMetrics, error) {
	m, s, err := newSFT(ctx, init, train, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	ms, err := s.Train(train, nil, func(rl.SFTMetrics) error { return ctx.Err() })
	if err != nil {
		return nil, ms, err
	}
	return m, ms, nil
}

// newSFT is a copy of init and its SFT trainer for examples as long as the
// longest of train.
func newSFT(ctx context.Context, init *model.Model, train []*rl.Trajectory, cfg rl.SFTConfig) (*model.Model, *rl.SFT, error) {
	if len(train) == 0 {
		return nil, nil, fmt.Errorf("sft: no training examples")
	}
	m, err := init.Clone()
	if err != nil {
		return nil, nil, err
	}
	cfg.MaxLen = LongestTrajectory(train)
	if cfg.MaxLen > m.Config.Context {
		return nil, nil, fmt.Errorf("sft: an example of %d tokens exceeds the context %d", cfg.MaxLen, m.Config.Context)
	}
	s, err := rl.NewSFT(m, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		s.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// TrainSFTSteps fine-tunes a copy of init on train for exactly the
// optimiser steps of perEpoch examples × cfg.Epochs epochs: train is put
// in one order drawn from cfg.Seed, and epoch e passes (in an order of
// its own, as rl.SFT.Epoch draws it) over the e-th window of perEpoch
// consecutive examples of that order, cyclically. Each epoch is then
// ⌈perEpoch / MiniBatch⌉ steps, and the whole run visits train about
// Epochs·perEpoch/len(train) times in its own proportions.
func TrainSFTSteps(ctx context.Context, init *model.Model, train []*rl.Trajectory, perEpoch int, cfg rl.SFTConfig) (*model.Model, []rl.SFTMetrics, error) {
	if perEpoch < 1 {
		return nil, nil, fmt.Errorf("sft: need at least one example per epoch, got %d", perEpoch)
	}
	m, s, err := newSFT(ctx, init, train, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	order := rand.New(rand.NewPCG(cfg.Seed, 0x5173)).Perm(len(train))
	window := make([]*rl.Trajectory, perEpoch)
	var ms []rl.SFTMetrics
	for e := range cfg.Epochs {
		for i := range window {
			window[i] = train[order[(e*perEpoch+i)%len(train)]]
		}
		mt, err := s.Epoch(window)
		if err != nil {
			return nil, ms, err
		}
		ms = append(ms, mt)
		if err := ctx.Err(); err != nil {
			return nil, ms, err
		}
	}
	return m, ms, nil
}

// InitialPolicy is π_θ0: a fresh model of preset, trained by a short SFT
// on a share (0, 1] of the expert pairs drawn with seed. It has seen the
// grammar and the prompt format, so its samples are plausible commands,
// but too little data to act like the expert; and FormatData on the same
// share, so it answers a choice prompt in the format, at chance
// (doc.go, "π_θ0").
func InitialPolicy(ctx context.Context, v *tasks.Vocab, preset string, context int, pairs []textworld.Pair, share float64, format ChoiceFormat, cfg rl.SFTConfig, seed uint64) (*model.Model, []rl.SFTMetrics, error) {
	if !(share > 0 && share <= 1) {
		return nil, nil, fmt.Errorf("initial policy: share must lie in (0, 1], got %v", share)
	}
	mc, err := model.NewConfig(preset, v.Size(), context)
	if err != nil {
		return nil, nil, fmt.Errorf("initial policy: %w", err)
	}
	fresh, err := model.New(mc, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("initial policy: %w", err)
	}
	n := max(1, int(share*float64(len(pairs))+0.5))
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("initial policy: no expert pairs")
	}
	perm := rand.New(rand.NewPCG(seed, 0x1417)).Perm(len(pairs))
	sub := make([]textworld.Pair, n)
	for i := range sub {
		sub[i] = pairs[perm[i]]
	}
	cfg.Seed = seed
	rng := rand.New(rand.NewPCG(seed, 0x2417))
	return TrainSFT(ctx, fresh, append(ILData(v, sub), FormatData(v, format, sub, rng)...), cfg)
}

// FormatData teaches the critic's answer format and nothing else: for each
// pair with another listed action, a choice prompt between the expert's
// action and a uniformly drawn other admissible one, in random order, once
// answered with the first slot and once with the second (the two actions
// written out after <act>, or "1" and "2" after <choose>). So π_θ0 answers in the format (R_fmt is
// not what ACT has to learn) while its choices carry no judgement: every
// prompt is seen with both answers, so the fit is 1/2 for each whatever
// the prompt (TestFormatDataCarriesNoJudgement). (Answering each
// prompt once by a coin, as first built, let π_θ0 memorise the coin: a
// strong random preference per prompt, which the GRPO stage then had to
// unlearn before it could learn; docs/act.md, "Learnability".)
func FormatData(v *tasks.Vocab, format ChoiceFormat, pairs []textworld.Pair, rng *rand.Rand) []*rl.Trajectory {
	var out []*rl.Trajectory
	for _, p := range pairs {
		var others [][]tasks.Token
		for _, a := range p.State.Admissible {
			if !textworld.Equal(a, p.Expert) {
				others = append(others, a)
			}
		}
		if len(others) == 0 {
			continue
		}
		c := CriticExample{State: p.State, Expert: p.Expert, Alt: others[rng.IntN(len(others))], ExpertFirst: rng.IntN(2) == 0}
		prompt, _ := format.Prompt(v, c)
		out = append(out, Demonstration(prompt, format.Answer(v, c, 1)), Demonstration(prompt, format.Answer(v, c, 2)))
	}
	return out
}

// TrainIL is imitation learning: SFT of a copy of init on every expert pair.
func TrainIL(ctx context.Context, init *model.Model, v *tasks.Vocab, pairs []textworld.Pair, cfg rl.SFTConfig) (*model.Model, []rl.SFTMetrics, error) {
	return TrainSFT(ctx, init, ILData(v, pairs), cfg)
}

// TrainEarlyExperience is the Early Experience baseline: SFT of a copy of
// init on the reflection data mixed with the plain expert data, matched to
// IL's optimiser steps: TrainIL with cfg makes cfg.Epochs passes over the
// pairs, ⌈len(pairs) / MiniBatch⌉ steps each, and so does this, each
// "epoch" being len(pairs) examples of the mix (TrainSFTSteps). The mix
// holds every pair and every reflection in their own proportions; the
// same budget of epochs over the whole mix would take about four times
// IL's steps on ALFWorld (docs/act.md §9), which would confound the row
// with its step count.
func TrainEarlyExperience(ctx context.Context, init *model.Model, v *tasks.Vocab, pairs []textworld.Pair, data []CriticExample, cfg rl.SFTConfig) (*model.Model, []rl.SFTMetrics, error) {
	mix := append(ILData(v, pairs), ReflectionData(v, data)...)
	return TrainSFTSteps(ctx, init, mix, len(pairs), cfg)
}
