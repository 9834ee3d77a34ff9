package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

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
// <dir>/base-sft.jsonl), saved as <dir>/base.safetensors. It keeps a
// checkpoint set after every epoch in <dir>/StudyBaseCheckpointDir, from
// which a resumed study's build goes on, bitwise; the set is removed once
// the base is saved.
func (s *study) buildBase(ctx context.Context) error {
	setDir := filepath.Join(s.dir, StudyBaseCheckpointDir)
	b, err := trainBase(ctx, *s.cfg.Base.Build, s.dir, setDir, s.out, map[string]string{"study": s.cfg.Name})
	if err != nil {
		return err
	}
	s.base = filepath.Join(s.dir, BaseFile)
	if err := b.Policy.Save(s.base, map[string]string{"study": s.cfg.Name, "role": "base policy"}); err != nil {
		return err
	}
	return os.RemoveAll(setDir)
}

// BaseCheckpointDir is where a capability or base build holds its latest
// checkpoint set, inside its folder; StudyBaseCheckpointDir is where a
// study's own base build holds its own, inside the study's folder (a
// folder name of its own, so that -resume does not take the study for a
// build).
const (
	BaseCheckpointDir      = "base-checkpoint"
	StudyBaseCheckpointDir = "base-build-checkpoint"
)

// The jobs whose builds keep a checkpoint set: the manifest's info names
// the recipe under the job's key, by which -resume knows how to go on.
const (
	JobCapability = "capability" // BuildCapability, a recipe of Capabilities
	JobBuildBase  = "build-base" // BuildShipped, a recipe of Bases
)

// recipesOf is job's recipes by name.
func recipesOf(job string) map[string]func() rl.BaseConfig {
	return map[string]map[string]func() rl.BaseConfig{JobCapability: Capabilities, JobBuildBase: Bases}[job]
}

// BuildOf is the job and recipe of the build whose checkpoint set is in
// dir/base-checkpoint, read from the set's manifest.
func BuildOf(dir string) (job, name string, err error) {
	m, err := run.ReadManifest(filepath.Join(dir, BaseCheckpointDir))
	if err != nil {
		return "", "", run.InputErrorf("%s: not a build that can resume: %v", dir, err)
	}
	for _, job := range []string{JobCapability, JobBuildBase} {
		if name, ok := m.Info[job]; ok {
			if _, known := recipesOf(job)[name]; !known {
				return "", "", run.InputErrorf("%s: the checkpoint set names no %s recipe of this code (%q)", dir, job, name)
			}
			return job, name, nil
		}
	}
	return "", "", run.InputErrorf("%s: the checkpoint set is not a capability or base build's", dir)
}

// resumable is the recipe, by name and config, of the build of job
// stopped in dir: its checkpoint set must be job's, and the build
// unfinished (no report).
func resumable(dir, job string) (string, rl.BaseConfig, error) {
	got, name, err := BuildOf(dir)
	if err != nil {
		return "", rl.BaseConfig{}, err
	}
	if got != job {
		return "", rl.BaseConfig{}, run.InputErrorf("%s: a %s build, not a %s build", dir, got, job)
	}
	if _, err := os.Stat(filepath.Join(dir, BaseReportFile)); err == nil {
		return "", rl.BaseConfig{}, run.InputErrorf("%s: the %s build is finished (%s); -%s %s -force builds it again", dir, job, BaseReportFile, job, name)
	}
	return name, recipesOf(job)[name](), nil
}

// builtBase is a finished base build: the policy, its DAgger rounds' data
// collection (none without DAgger), and the seconds its earlier
// processes spent on it before a resume (0 for a build never stopped).
type builtBase struct {
	Policy      *model.Model
	Rounds      []rl.DAggerRound
	EarlierSecs float64
}

// trainBase runs a base build into dir (its base-sft.jsonl). It keeps a
// checkpoint set of the build (rl.Base's state, info and the config's
// hash in its manifest) in setDir after every epoch, and when that folder
// already holds one it goes on from it: the log is cut back to the set's
// epochs and the build continues bitwise (rl.TestBaseResumeIsBitwise).
func trainBase(ctx context.Context, cfg rl.BaseConfig, dir, setDir string, out io.Writer, info map[string]string) (*builtBase, error) {
	start := time.Now()
	b, err := rl.NewBase(ctx, cfg)
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	if err != nil {
		return nil, fmt.Errorf("study: base: %w", err)
	}
	defer b.Close()
	built := &builtBase{Policy: b.Policy}
	var log *run.JSONL
	if info, err = withConfigHash(info, cfg); err == nil {
		log, err = resumeBase(b, filepath.Join(dir, BaseSFTFile), setDir, info, built)
	}
	if err != nil {
		return nil, err
	}
	defer log.Close()
	meter := progress.New(out, "base SFT", b.Epochs())
	defer meter.Finish()
	if b.Updates() == 0 {
		meter.Printf("== base: SFT of a %s policy (%d parameters) on %s, %d epochs%s\n",
			cfg.Preset, b.Policy.Config.NumParams(), sourceList(b.Sources), cfg.SFT.Epochs, daggerPlan(cfg.DAgger))
	} else {
		meter.Printf("== base: resuming after epoch %d of %d from %s\n", b.Updates(), b.Epochs(), setDir)
	}
	for epoch := b.Updates(); epoch < b.Epochs(); epoch++ {
		meter.Tick(epoch, fmt.Sprintf("epoch %d", epoch+1))
		m, err := b.Epoch(ctx)
		if ctx.Err() != nil {
			return nil, run.ErrInterrupted
		}
		if err != nil {
			return nil, fmt.Errorf("study: base: %w", err)
		}
		if err := log.Write(newBaseRecord(m)); err != nil {
			return nil, err
		}
		i := maps.Clone(info)
		i["seconds"] = strconv.FormatFloat(built.EarlierSecs+time.Since(start).Seconds(), 'f', 1, 64)
		if err := run.SaveState(setDir, b, i); err != nil {
			return nil, fmt.Errorf("study: base: %w", err)
		}
		if r := m.DAgger; r != nil {
			built.Rounds = append(built.Rounds, *r)
			labeller := b.Sources[cfg.DAggerSource()].Policy.Name()
			meter.Line(epoch+1, fmt.Sprintf("%s; %.0f s", daggerLine(*r, cfg, labeller), r.Seconds))
		}
		line := fmt.Sprintf("base SFT epoch %d/%d  train loss %.3f", epoch+1, b.Epochs(), m.TrainLoss)
		for _, f := range m.Sources {
			line += fmt.Sprintf("  %s acc %.3f", f.Name, f.Accuracy)
		}
		meter.Line(epoch+1, line)
	}
	return built, nil
}

// withConfigHash is info with the SHA-256 of cfg's JSON added, under
// which a checkpoint set of the build is kept: a resume under another
// config (a recipe changed since) is refused.
func withConfigHash(info map[string]string, cfg rl.BaseConfig) (map[string]string, error) {
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("study: base: %w", err)
	}
	sum := sha256.Sum256(data)
	info = maps.Clone(info)
	info["config_sha256"] = hex.EncodeToString(sum[:])
	return info, nil
}

// resumeBase restores b from the checkpoint set in setDir when there is
// one (else it leaves b fresh), which must have been kept under info's
// config hash; keeps the lines of logPath up to the set's epoch (a line
// written after the set, or cut short by a kill, is dropped, to be
// written again), recovers the DAgger rounds and the earlier processes'
// seconds into built, and opens the log for appending. Nothing is written
// before every file is read and checked (b, restored first, is the
// caller's to drop on an error).
func resumeBase(b *rl.Base, logPath, setDir string, info map[string]string, built *builtBase) (*run.JSONL, error) {
	if _, err := os.Stat(filepath.Join(setDir, run.ManifestFile)); errors.Is(err, fs.ErrNotExist) {
		return run.CreateJSONL(logPath)
	}
	m, err := run.RestoreState(setDir, b)
	if err != nil {
		return nil, fmt.Errorf("study: base: resume: %w", err)
	}
	if m.Info["config_sha256"] != info["config_sha256"] {
		return nil, fmt.Errorf("study: base: resume: the checkpoint set in %s was kept under another config than this build's "+
			"(the recipe changed since?); only the same config resumes", setDir)
	}
	records, kept, err := run.ReadRecords(logPath, func(r baseRecord) bool { return r.Epoch < m.Update })
	if err != nil {
		return nil, fmt.Errorf("study: base: resume: %w", err)
	}
	if len(records) != m.Update {
		return nil, fmt.Errorf("study: base: resume: %s holds %d epochs before the checkpoint set's %d", logPath, len(records), m.Update)
	}
	for _, r := range records {
		if r.DAgger != nil {
			built.Rounds = append(built.Rounds, *r.DAgger)
		}
	}
	if built.EarlierSecs, err = strconv.ParseFloat(m.Info["seconds"], 64); err != nil {
		return nil, fmt.Errorf("study: base: resume: the checkpoint set's manifest has no seconds")
	}
	if err := run.WriteFile(logPath, kept); err != nil {
		return nil, err
	}
	return run.AppendJSONL(logPath)
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
