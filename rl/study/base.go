package study

import (
	"context"
	"fmt"
	"path/filepath"

	"arew/model"
	"arew/rl"
	"arew/rl/progress"
	"arew/tasks"
)

func (b Base) spec() tasks.PolicySpec {
	return tasks.PolicySpec{Kind: b.Demonstrator.Kind, QAS: b.Demonstrator.QAS, QBT: b.Demonstrator.QBT}
}

// buildBase makes the base when the config names no checkpoint: a fresh
// Base.Preset policy (with a value head for a shared critic) imitating
// Base.Demos train-split demonstrations for Base.SFT.Epochs epochs, all
// drawn from Base.Seed, saved as <dir>/base.safetensors with one
// sftRecord per epoch in <dir>/base-sft.jsonl.
func (s *study) buildBase(ctx context.Context) error {
	b := s.cfg.Base
	demo, err := s.task.Scripted(b.spec())
	if err != nil {
		return fmt.Errorf("study: base demonstrator: %w", err)
	}
	mc, err := model.NewConfig(b.Preset, s.task.Vocab().Size(), s.task.MaxTokens())
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	if s.cfg.PPO != nil && s.cfg.PPO.Critic.Mode == "shared" {
		mc = mc.WithValueHead()
	}
	policy, err := model.New(mc, b.Seed)
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	if err := s.fits(policy); err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	demos, err := rl.Demonstrations(s.task, demo, tasks.Train, 0, b.Demos, b.Seed)
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	sc := b.SFT
	sc.Seed = b.Seed
	if sc.MaxLen = s.cfg.rollout().MaxLen; sc.MaxLen == 0 {
		sc.MaxLen = min(s.task.MaxTokens(), policy.Config.Context)
	}
	sft, err := rl.NewSFT(policy, sc)
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	defer sft.Close()
	log, err := createJSONL(filepath.Join(s.dir, BaseSFTFile))
	if err != nil {
		return err
	}
	defer log.Close()
	meter := progress.New(s.out, "base SFT", sc.Epochs)
	defer meter.Finish()
	meter.Printf("== base: SFT of a %s policy on %d demonstrations of %s, %d epochs\n", b.Preset, b.Demos, demo.Name(), sc.Epochs)
	for epoch := range sc.Epochs {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		meter.Tick(epoch, fmt.Sprintf("epoch %d", epoch+1))
		m, err := sft.Epoch(demos)
		if err != nil {
			return fmt.Errorf("study: base: %w", err)
		}
		if err := log.Write(sftRecord{Epoch: m.Epoch, Steps: m.Steps, TrainLoss: Num(m.TrainLoss),
			GradNorm: Num(m.GradNorm), LR: m.LR, Seconds: m.Seconds}); err != nil {
			return err
		}
		meter.Line(epoch+1, fmt.Sprintf("base SFT epoch %d/%d  train loss %.3f", epoch+1, sc.Epochs, m.TrainLoss))
	}
	s.base = filepath.Join(s.dir, BaseFile)
	return policy.Save(s.base, map[string]string{"study": s.cfg.Name, "role": "base policy"})
}

// sftRecord is one line of base-sft.jsonl: rl.SFTMetrics without the
// held-out measures (the base is built without a held-out set).
type sftRecord struct {
	Epoch     int     `json:"epoch"`
	Steps     int     `json:"steps"`
	TrainLoss Num     `json:"train_loss"`
	GradNorm  Num     `json:"grad_norm"`
	LR        float64 `json:"lr"`
	Seconds   float64 `json:"seconds"`
}
