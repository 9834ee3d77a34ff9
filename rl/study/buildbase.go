package study

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"arew/model"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// The files of a base build's folder.
const (
	BaseReportFile  = "report.md"
	BaseSummaryFile = "summary.json"
)

// BaseEvalEpisodes is how many validation instances a base build evaluates
// on (a base is chosen before any RL, so only on validation).
const BaseEvalEpisodes = 500

// BaseRow is one line of a base build's report: the policy (greedy or
// sampled) or a scripted baseline, under one source's task variant.
type BaseRow struct {
	Source   string        `json:"source"`
	Policy   string        `json:"policy"`
	Measures *run.Measures `json:"measures"`
	// Repeats splits a played row's episodes by whether they hold a
	// repeated query (nil for the scripted and constant rows).
	Repeats *RepeatSplit `json:"repeat_split,omitempty"`
}

// RepeatSplit is a row's episodes split by whether they hold a repeated
// query (a question asked before, which gets no new evidence): how many
// do, and the success of each part (NaN for an empty part). It tells
// what the repeats cost apart from what the other turns cost.
type RepeatSplit struct {
	Episodes       int     `json:"episodes"`
	WithRepeat     int     `json:"with_repeat"`
	SuccessWith    run.Num `json:"success_with_repeat"`
	SuccessWithout run.Num `json:"success_without_repeat"`
}

// splitByRepeat is the RepeatSplit of episodes' measures, each part's
// success its tasks.Summarize mean.
func splitByRepeat(episodes []tasks.Measures) *RepeatSplit {
	var with, without []tasks.Measures
	for _, m := range episodes {
		if m.Repeats > 0 {
			with = append(with, m)
		} else {
			without = append(without, m)
		}
	}
	return &RepeatSplit{Episodes: len(episodes), WithRepeat: len(with),
		SuccessWith: run.Num(tasks.Summarize(with).Success), SuccessWithout: run.Num(tasks.Summarize(without).Success)}
}

// RepeatTable is the Markdown table of the rows' repeat splits ("" when
// no row has one).
func RepeatTable(rows []BaseRow) string {
	var cells [][]string
	for _, r := range rows {
		if s := r.Repeats; s != nil {
			cells = append(cells, []string{r.Source, r.Policy, fmt.Sprintf("%d of %d", s.WithRepeat, s.Episodes),
				f3(s.SuccessWith), f3(s.SuccessWithout)})
		}
	}
	if cells == nil {
		return ""
	}
	return run.MarkdownTable([]string{"style", "policy", "episodes with a repeated query", "their success", "the others' success"}, 2, cells)
}

// BaseSummary is a base build's summary.json: the recipe, the checkpoint's hash, whether it
// is the shipped file byte for byte, and the evaluation rows.
type BaseSummary struct {
	Name      string        `json:"name"`
	Config    rl.BaseConfig `json:"config"`
	SHA256    string        `json:"sha256"`
	IsShipped bool          `json:"identical_to_shipped"`
	Episodes  int           `json:"episodes"`
	Rows      []BaseRow     `json:"rows"`
	// DAgger is each DAgger round's data collection (Config.DAgger).
	DAgger []rl.DAggerRound `json:"dagger,omitempty"`
	// Seconds is the wall time of the build and its evaluation, as a
	// capability build's (CapabilitySummary.Seconds); 0 in the summaries
	// of builds made before it was recorded.
	Seconds float64 `json:"seconds,omitempty"`
}

// BuildShipped rebuilds the shipped base name into dir (which must not
// exist or be empty): its SFT epochs, base.safetensors, then an
// evaluation of the base under every source's task variant on the first
// BaseEvalEpisodes validation instances, greedy and sampled, beside that
// source's demonstrator, the random and strong policies and the best
// constant answer on the same instances (summary.json, report.md). It reports
// whether the checkpoint is byte for byte the one this package ships.
//
// Like a capability build, it keeps a checkpoint set after every epoch
// in base-checkpoint/, from which ResumeShipped goes on.
func BuildShipped(ctx context.Context, name, dir string, out io.Writer) (*BaseSummary, error) {
	if err := CheckBaseName(name); err != nil {
		return nil, err
	}
	cfg := Bases[name]()
	if _, _, err := rl.BaseSources(cfg); err != nil {
		return nil, run.InputErr(err)
	}
	if err := run.PrepareDir(dir, false); err != nil {
		return nil, err
	}
	return buildShipped(ctx, name, cfg, dir, out)
}

// ResumeShipped goes on with the base build (-build-base) stopped in dir
// from its checkpoint set, bitwise, and finishes it as BuildShipped does.
func ResumeShipped(ctx context.Context, dir string, out io.Writer) (*BaseSummary, error) {
	name, cfg, err := resumable(dir, JobBuildBase)
	if err != nil {
		return nil, err
	}
	return buildShipped(ctx, name, cfg, dir, out)
}

// buildShipped trains (or goes on training) base name's cfg in dir and
// evaluates it (BuildShipped).
func buildShipped(ctx context.Context, name string, cfg rl.BaseConfig, dir string, out io.Writer) (*BaseSummary, error) {
	start := time.Now()
	built, err := trainBase(ctx, cfg, dir, filepath.Join(dir, BaseCheckpointDir), out, map[string]string{JobBuildBase: name})
	if err != nil {
		return nil, err
	}
	policy := built.Policy
	path := filepath.Join(dir, BaseFile)
	if err := policy.Save(path, map[string]string{"base": name, "role": "base policy"}); err != nil {
		return nil, err
	}
	sum := &BaseSummary{Name: name, Config: cfg, Episodes: BaseEvalEpisodes, DAgger: built.Rounds}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(data)
	sum.SHA256 = hex.EncodeToString(h[:])
	if ship, err := shipped.ReadFile(shippedPath(name)); err == nil {
		sum.IsShipped = bytes.Equal(ship, data)
	}
	if sum.Rows, err = EvaluateBase(ctx, policy, cfg, BaseEvalEpisodes, out); err != nil {
		return nil, err
	}
	sum.Seconds = built.EarlierSecs + time.Since(start).Seconds()
	if err := run.WriteJSON(filepath.Join(dir, BaseSummaryFile), sum); err != nil {
		return nil, err
	}
	return sum, run.WriteFile(filepath.Join(dir, BaseReportFile), []byte(sum.Report()))
}

// EvaluateBase plays policy under every source's task variant on the first
// n validation instances, greedy and sampled (seed 1), beside the scripted
// policies that give it scale: the source's demonstrator, random and strong
// (each once) and the best constant answer. Progress lines go to out (nil: none).
func EvaluateBase(ctx context.Context, policy *model.Model, cfg rl.BaseConfig, n int, out io.Writer) ([]BaseRow, error) {
	return eachSource(cfg, out, func(s rl.BaseSource, out io.Writer) ([]BaseRow, error) {
		rows, err := playModes(ctx, policy, s.Task, n, s.Name, "base", out)
		if err != nil {
			return rows, err
		}
		specs := []tasks.PolicySpec{s.DemoSource.Policy}
		for _, kind := range []string{"random", "strong"} {
			if kind != s.DemoSource.Policy.Kind {
				specs = append(specs, tasks.PolicySpec{Kind: kind})
			}
		}
		bs, err := run.ScriptedBaselines(s.Task, specs, tasks.Val, n, 1)
		for _, b := range bs {
			rows = append(rows, BaseRow{Source: s.Name, Policy: b.Name, Measures: b.Measures})
		}
		return rows, err
	})
}

// BaseTable is the Markdown table of a base evaluation's rows.
func BaseTable(rows []BaseRow) string {
	header := append(run.ReportedHeader("style", "policy"), "malformed turns")
	var cells [][]string
	for _, r := range rows {
		row := []string{r.Source, r.Policy}
		for _, m := range run.Reported {
			row = append(row, f3(run.Num(m.Get(r.Measures))))
		}
		cells = append(cells, append(row, f3(r.Measures.Malformed)))
	}
	return run.MarkdownTable(header, 2, cells)
}

// Report is a base build's report.md.
func (s *BaseSummary) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Base %s\n\n", s.Name)
	fmt.Fprintf(&b, "- recipe: a %s policy, %d SFT epochs (minibatch %d, lr %g), seed %d, on %s\n",
		s.Config.Preset, s.Config.SFT.Epochs, s.Config.SFT.MiniBatch, s.Config.SFT.Optim.LR, s.Config.Seed, demoList(s.Config.Sources))
	for _, r := range s.DAgger { // DAgger plays one source, labelled by its own demonstrator
		fmt.Fprintf(&b, "- %s\n", daggerLine(r, s.Config, "the "+s.Config.Sources[s.Config.DAggerSource()].Policy.Kind+" policy"))
	}
	fmt.Fprintf(&b, "- %s sha256 %s; identical to the shipped base: %v\n", BaseFile, s.SHA256, s.IsShipped)
	wall := ""
	if s.Seconds > 0 {
		wall = fmt.Sprintf("; %s wall", time.Duration(s.Seconds*float64(time.Second)).Round(time.Second))
	}
	fmt.Fprintf(&b, "- evaluated on the first %d validation instances; sampled at temperature 1%s\n\n", s.Episodes, wall)
	b.WriteString(BaseTable(s.Rows))
	return b.String()
}
