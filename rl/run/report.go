package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"arew/rl"
	"arew/tasks"
)

// lastWindow is how many recent updates the report averages.
const lastWindow = 10

// runBaselines plays the task's scripted policies (random, weak with the
// demonstrator's knobs, strong) and finds the best constant answer on the
// same validation instances as the evaluations.
func (e *Experiment) runBaselines(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	n := e.cfg.Eval.Episodes
	start := time.Now()
	d := e.cfg.SFT.Demonstrator
	if d.Kind != "weak" {
		d = DefaultConfig(DefaultAlgo).SFT.Demonstrator
	}
	specs := []tasks.PolicySpec{{Kind: "random"}, {Kind: "weak", QAS: d.QAS, QBT: d.QBT}, {Kind: "strong"}}
	var err error
	if e.baselines, err = ScriptedBaselines(e.task, specs, tasks.Val, n, e.cfg.Seed); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "\n== scripted baselines on the %d validation instances (%.1f s)\n", n, time.Since(start).Seconds())
	fmt.Fprint(e.out, e.table(e.baselineRows()))
	return nil
}

// tableHeader names the columns of every evaluation table.
var tableHeader = []string{"policy", "success", "reward", "AS proxy", "BT proxy", "I_AS", "C_BT", "evidence", "turns", "malformed turns"}

// measuresRow is one row of an evaluation table.
func measuresRow(name string, m Measures) []string {
	row := []string{name}
	for _, x := range []Num{m.Success, m.Reward, m.ASProxy, m.BTProxy, m.IAS, m.CBT, m.Evidence} {
		row = append(row, f3(float64(x)))
	}
	return append(row, f1(float64(m.Turns)), f2(float64(m.Malformed)))
}

func (e *Experiment) baselineRows() [][]string {
	var rows [][]string
	for _, b := range e.baselines {
		rows = append(rows, measuresRow(b.Name, *b.Measures))
	}
	return rows
}

// mainRows are the baselines, the base policy and the last evaluation.
func (e *Experiment) mainRows() [][]string {
	rows := e.baselineRows()
	evals := e.record().Evals
	for _, r := range evals {
		if phase(r, e.cfg.Updates) == "base" {
			rows = append(rows, measuresRow(fmt.Sprintf("base, %s", r.Mode), r.Measures))
		}
	}
	if n := len(evals); n > 0 && evals[n-1].Update > 0 {
		last := evals[n-1].Update
		for _, r := range evals {
			if r.Update == last {
				rows = append(rows, measuresRow(fmt.Sprintf("after %d updates, %s", last, r.Mode), r.Measures))
			}
		}
	}
	return rows
}

// table renders rows under tableHeader as an aligned Markdown table.
func (e *Experiment) table(rows [][]string) string { return MarkdownTable(tableHeader, 1, rows) }

// algoLine describes the RL algorithm and its AREW setting.
func (e *Experiment) algoLine() string {
	a := e.cfg.Advantage().AREW
	arew := "vanilla (no AREW)"
	if a.Critiques != rl.CritiquesNone && a.Critiques != "" && a.Lambda != 0 {
		arew = fmt.Sprintf("AREW %s, λ %g, mode %s", a.Critiques, a.Lambda, a.Mode)
		if a.Separate {
			arew += ", separate margins"
		}
		if a.Start > 0 || a.End > 0 {
			arew += fmt.Sprintf(", updates [%d, %d)", a.Start, a.End)
		}
		if a.Perturb.Flip > 0 {
			arew += fmt.Sprintf(", flip α %g", a.Perturb.Flip)
		}
	}
	p := e.cfg.Policy()
	s := fmt.Sprintf("%s + %s; %d updates × %d episodes, %d epochs of minibatches of %d, lr %g",
		e.cfg.Algo, arew, e.cfg.Updates, int(e.cfg.EpisodesPerUpdate()), p.Epochs, p.MiniBatch, p.Optim.LR)
	if e.cfg.PPO != nil {
		s += fmt.Sprintf(", %s critic", e.cfg.PPO.Critic.Mode)
		if e.cfg.PPO.Critic.Mode == rl.CriticSeparate {
			s += fmt.Sprintf(" (lr %g)", e.cfg.PPO.Critic.Optim.LR)
		}
	}
	return s
}

// modelLine describes the policy and where it starts.
func (e *Experiment) modelLine() string {
	mc := e.policy.Config
	from := "preset " + e.cfg.Model.Preset
	if e.cfg.Model.Init != "" {
		from = "init " + e.cfg.Model.Init
	}
	return fmt.Sprintf("%s: d %d, %d layers, %d heads, mlp %d, context %d, vocab %d, %d parameters",
		from, mc.DModel, mc.Layers, mc.Heads, mc.MLP, mc.Context, mc.Vocab, mc.NumParams())
}

func (e *Experiment) sftLine() string {
	s := e.cfg.SFT
	if s.Demos == 0 {
		return "none"
	}
	d := s.Demonstrator
	return fmt.Sprintf("%d demonstrations of %s (q_as %g, q_bt %g), %d epochs of minibatches of %d, lr %g",
		s.Demos, d.Kind, d.QAS, d.QBT, s.Train.Epochs, s.Train.MiniBatch, s.Train.Optim.LR)
}

// writeReport writes report.md: the settings, the main table (scripted
// baselines, base, after RL), every evaluation, and the last updates.
func (e *Experiment) writeReport() error {
	var b strings.Builder
	c := e.cfg
	taskCfg := "defaults"
	if c.TaskConfig != nil {
		taskCfg = string(c.TaskConfig)
	}
	fmt.Fprintf(&b, "# Run %s\n\n", c.Name)
	fmt.Fprintf(&b, "- status: %s after %d of %d updates, %s wall time\n", e.status, e.Done(), c.Updates,
		time.Since(e.start).Round(time.Second))
	fmt.Fprintf(&b, "- task: %s (config: %s)\n", c.Task, taskCfg)
	fmt.Fprintf(&b, "- model: %s\n", e.modelLine())
	fmt.Fprintf(&b, "- SFT warm start: %s\n", e.sftLine())
	fmt.Fprintf(&b, "- RL: %s\n", e.algoLine())
	fmt.Fprintf(&b, "- skipped optimiser steps (a non-finite loss or gradient; the weights left as they were): %d in RL, %d in SFT\n",
		e.record().Skipped, e.sftSkipped())
	fmt.Fprintf(&b, "- evaluation: the first %d validation instances, %s; seed %d\n", c.Eval.Episodes, c.Eval.Modes, c.Seed)
	fmt.Fprintf(&b, "- %s, %s/%s, %d CPUs, kernel set %s (%s)\n\n", c.Version.Go, c.Version.OS, c.Version.Arch, c.Version.CPUs,
		c.Version.KernelSet, c.Version.CPU)
	fmt.Fprintf(&b, "Repeat: `go run ./cmd/train -config %s -name <new name>`\n\n", filepath.Join(e.dir, ConfigFile))

	b.WriteString("## Base vs after RL\n\n")
	b.WriteString("Validation split; the scripted policies play the same instances. Success and reward are the outcome; " +
		"AS and BT proxies the paper's critique-based measures; I_AS and C_BT the exact ones (docs/arew.md).\n\n")
	b.WriteString(e.table(e.mainRows()))

	if evals := e.record().Evals; len(evals) > 0 {
		b.WriteString("\n## Every evaluation\n\n")
		var rows [][]string
		for _, r := range evals {
			rows = append(rows, measuresRow(fmt.Sprintf("%s @ %d, %s", phase(r, c.Updates), r.Update, r.Mode), r.Measures))
		}
		b.WriteString(e.table(rows))
	}
	if len(e.sftLog) > 0 {
		var rows [][]string
		for _, m := range e.sftLog {
			rows = append(rows, []string{strconv.Itoa(m.Epoch + 1), f3(m.TrainLoss), f3(m.TestLoss), f3(m.TestAccuracy),
				strconv.Itoa(m.SkippedSteps), f1(m.Seconds)})
		}
		b.WriteString("\n## SFT\n\n" + MarkdownTable([]string{"epoch", "train loss", "test loss", "test acc", "skipped steps", "seconds"}, 0, rows))
	}
	if ms := e.record().Metrics; len(ms) > 0 {
		last := ms[max(0, len(ms)-lastWindow):]
		fmt.Fprintf(&b, "\n## The last %d updates (training rollouts, sampled; means)\n\n", len(last))
		b.WriteString(lastUpdatesTable(last))
	}
	if shown := e.record().Shown; len(shown) > 0 {
		fmt.Fprintf(&b, "\n## Transcripts of the latest evaluation (update %d, %s)\n\n", shown[0].Update, shown[0].Mode)
		b.WriteString("Each line is an observation, then | the policy's turn with its kind and critique. " +
			"Every evaluation's first episodes are in samples.jsonl.\n\n")
		for _, smp := range shown {
			b.WriteString(smp.Transcript.Markdown() + "\n")
		}
	}
	b.WriteString("\nFiles: config.json, sft.jsonl, metrics.jsonl (one rl.Metrics per update), " +
		"eval.jsonl (one object per evaluation and mode), samples.jsonl (transcripts of each evaluation's first episodes), " +
		"tb/ (TensorBoard events), provenance.json (commit, kernel set, CPU, wall time), " +
		"checkpoints/ (manifest.json names the latest set; -resume continues from it).\n")
	return WriteFile(filepath.Join(e.dir, ReportFile), []byte(b.String()))
}

// sftSkipped is the number of SFT optimiser steps skipped.
func (e *Experiment) sftSkipped() int {
	n := 0
	for _, m := range e.sftLog {
		n += m.SkippedSteps
	}
	return n
}

// lastUpdatesTable is the mean of a few metrics over ms.
func lastUpdatesTable(ms []rl.Metrics) string {
	cols := []struct {
		name string
		get  func(rl.Metrics) float64
	}{
		{"reward", func(m rl.Metrics) float64 { return m.Reward }},
		{"success", func(m rl.Metrics) float64 { return m.Success }},
		{"AS proxy", func(m rl.Metrics) float64 { return m.ASProxy }},
		{"BT proxy", func(m rl.Metrics) float64 { return m.BTProxy }},
		{"I_AS", func(m rl.Metrics) float64 { return m.IAS }},
		{"C_BT", func(m rl.Metrics) float64 { return m.CBT }},
		{"approx KL", func(m rl.Metrics) float64 { return m.ApproxKL }},
		{"clip frac", func(m rl.Metrics) float64 { return m.ClipFrac }},
		{"entropy", func(m rl.Metrics) float64 { return m.Entropy }},
		{"AREW corr", func(m rl.Metrics) float64 { return m.AREWMeanAbs }},
	}
	var header, row []string
	for _, c := range cols {
		xs := make([]float64, len(ms))
		for i, m := range ms {
			xs[i] = c.get(m)
		}
		cell := "–"
		if mean, _, n := MeanStd(xs); n > 0 {
			cell = fmt.Sprintf("%.4g", mean)
		}
		header, row = append(header, c.name), append(row, cell)
	}
	return MarkdownTable(header, 0, [][]string{row})
}

func f3(x float64) string { return Fixed(x, 3) }
func f2(x float64) string { return Fixed(x, 2) }
func f1(x float64) string { return Fixed(x, 1) }
