package study

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"arew/model"
	"arew/rl"
	"arew/rl/progress"
	"arew/rl/run"
)

// loadBase resolves the config's base before the folder is touched: a
// checkpoint must load and fit the task; a shipped base must exist and
// fit; a built one is made later, in the folder (buildBase).
func (s *study) loadBase() error {
	b := s.cfg.Base
	var p *model.Model
	var err error
	switch {
	case b.Path != "":
		p, _, err = model.Load(b.Path)
		s.base = b.Path
	case b.Shipped != "":
		p, err = LoadShipped(b.Shipped)
	default:
		src, _, err := rl.BaseSources(*b.Build)
		if err != nil {
			return fmt.Errorf("study: base: %w", err)
		}
		if !slices.Equal(src[0].Task.Vocab().Words(), s.task.Vocab().Words()) {
			return fmt.Errorf("study: base: the base's demonstrations and the study's task %s have different vocabularies", s.cfg.Task)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	if err := s.fits(p); err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	return nil
}

// placeBase writes a shipped base into the folder, so that the study's
// runs (and a reader) find it there.
func (s *study) placeBase() error {
	if s.cfg.Base.Shipped == "" {
		return nil
	}
	data, err := shipped.ReadFile(shippedPath(s.cfg.Base.Shipped))
	if err != nil {
		return fmt.Errorf("study: base: %w", err)
	}
	s.base = filepath.Join(s.dir, BaseFile)
	return run.WriteFile(s.base, data)
}

// buildBase makes the base when the config asks for one: rl.NewBase, then
// its SFT epochs with a line each (and one rl.BaseEpoch per line of
// <dir>/base-sft.jsonl), saved as <dir>/base.safetensors.
func (s *study) buildBase(ctx context.Context) error {
	p, _, err := trainBase(ctx, *s.cfg.Base.Build, s.dir, s.out)
	if err != nil {
		return err
	}
	s.base = filepath.Join(s.dir, BaseFile)
	return p.Save(s.base, map[string]string{"study": s.cfg.Name, "role": "base policy"})
}

// trainBase runs a base build into dir (its base-sft.jsonl) and returns the
// trained policy and its DAgger rounds' data collection (none without
// DAgger).
func trainBase(ctx context.Context, cfg rl.BaseConfig, dir string, out io.Writer) (*model.Model, []rl.DAggerRound, error) {
	b, err := rl.NewBase(ctx, cfg)
	if ctx.Err() != nil {
		return nil, nil, run.ErrInterrupted
	}
	if err != nil {
		return nil, nil, fmt.Errorf("study: base: %w", err)
	}
	defer b.Close()
	log, err := run.CreateJSONL(filepath.Join(dir, BaseSFTFile))
	if err != nil {
		return nil, nil, err
	}
	defer log.Close()
	meter := progress.New(out, "base SFT", b.Epochs())
	defer meter.Finish()
	meter.Printf("== base: SFT of a %s policy (%d parameters) on %s, %d epochs%s\n",
		cfg.Preset, b.Policy.Config.NumParams(), sourceList(b.Sources), cfg.SFT.Epochs, daggerPlan(cfg.DAgger))
	var rounds []rl.DAggerRound
	for epoch := range b.Epochs() {
		meter.Tick(epoch, fmt.Sprintf("epoch %d", epoch+1))
		m, err := b.Epoch(ctx)
		if ctx.Err() != nil {
			return nil, nil, run.ErrInterrupted
		}
		if err != nil {
			return nil, nil, fmt.Errorf("study: base: %w", err)
		}
		if err := log.Write(newBaseRecord(m)); err != nil {
			return nil, nil, err
		}
		if r := m.DAgger; r != nil {
			rounds = append(rounds, *r)
			labeller := b.Sources[cfg.DAggerSource()].Policy.Name()
			meter.Line(epoch+1, fmt.Sprintf("%s; %.0f s", daggerLine(*r, cfg, labeller), r.Seconds))
		}
		line := fmt.Sprintf("base SFT epoch %d/%d  train loss %.3f", epoch+1, b.Epochs(), m.TrainLoss)
		for _, f := range m.Sources {
			line += fmt.Sprintf("  %s acc %.3f", f.Name, f.Accuracy)
		}
		meter.Line(epoch+1, line)
	}
	return b.Policy, rounds, nil
}

// sourceList names the sources: "8192 locked(0.03,0.03) [hasty], …".
func sourceList(src []rl.BaseSource) string {
	out := ""
	for i, s := range src {
		if i > 0 {
			out += " + "
		}
		out += fmt.Sprintf("%d %s [%s]", s.Demos, s.Policy.Name(), s.Name)
	}
	return out
}

// daggerPlan describes a build's DAgger rounds ("" when it has none).
func daggerPlan(d *rl.DAggerConfig) string {
	if d == nil {
		return ""
	}
	return fmt.Sprintf(", then %d DAgger rounds of %d demonstrations (the learner's share of turns %g), each followed by %d epoch(s) on the aggregate",
		d.Rounds, d.Demos, d.Share, d.Epochs)
}

// daggerLine describes a DAgger round's data collection, its scripted
// turns written by labeller: a console line, and a capability report's.
func daggerLine(r rl.DAggerRound, cfg rl.BaseConfig, labeller string) string {
	d := cfg.DAgger
	return fmt.Sprintf("DAgger round %d of %d: %d new demonstrations of %s, the learner writing %d turns and %s %d; the mixture succeeds %s, with %.2f malformed turns and %.2f repeats an episode; then %d epoch(s) on the aggregate",
		r.Round, d.Rounds, r.Demos, cfg.Sources[cfg.DAggerSource()].Name, r.LearnerTurns, labeller, r.ExpertTurns,
		f3(run.Num(r.Success)), r.Malformed, r.Repeats, d.Epochs)
}

// baseRecord is one line of base-sft.jsonl: rl.BaseEpoch with NaN-safe
// numbers.
type baseRecord struct {
	Epoch     int         `json:"epoch"`
	Steps     int         `json:"steps"`
	TrainLoss run.Num     `json:"train_loss"`
	GradNorm  run.Num     `json:"grad_norm"`
	LR        float64     `json:"lr"`
	Seconds   float64     `json:"seconds"`
	Sources   []sourceFit `json:"sources"`
	// DAgger is the round's data collection, on a round's first epoch.
	DAgger *rl.DAggerRound `json:"dagger,omitempty"`
}

type sourceFit struct {
	Name     string  `json:"name"`
	Loss     run.Num `json:"test_loss"`
	Accuracy run.Num `json:"test_accuracy"`
}

func newBaseRecord(m rl.BaseEpoch) baseRecord {
	r := baseRecord{Epoch: m.Epoch, Steps: m.Steps, TrainLoss: run.Num(m.TrainLoss), GradNorm: run.Num(m.GradNorm),
		LR: m.LR, Seconds: m.Seconds, DAgger: m.DAgger}
	for _, f := range m.Sources {
		r.Sources = append(r.Sources, sourceFit{Name: f.Name, Loss: run.Num(f.Loss), Accuracy: run.Num(f.Accuracy)})
	}
	return r
}
