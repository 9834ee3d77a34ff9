package study

import (
	"arew/rl"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"arew/rl/progress"
	"arew/rl/run"
)

// report is report.md: the settings, mean ± std per arm of the base and
// final evaluations, updates-to-threshold per seed, and the plots.
// attempts are provenance.json's, the last one this attempt's (wall
// is its wall time so far).
func report(c Config, s *Summary, plots []string, samples map[string][]run.Sample, wall time.Duration, attempts []run.Provenance) string {
	var b strings.Builder
	prov := attempts[len(attempts)-1]
	fmt.Fprintf(&b, "# Study %s\n\n", c.Name)
	fmt.Fprintf(&b, "- status: %s, %s\n", s.Status, wallLine(wall, attempts))
	task := c.Task
	if len(c.TaskConfig) > 0 {
		task += " " + string(c.TaskConfig)
	}
	fmt.Fprintf(&b, "- task: %s\n", task)
	fmt.Fprintf(&b, "- base: %s\n", baseLine(c))
	algo := &c.Algorithm
	fmt.Fprintf(&b, "- RL: %s, %d updates × %d episodes, lr %g\n", c.Algo, c.Updates, int(algo.EpisodesPerUpdate()), algo.Policy().Optim.LR)
	fmt.Fprintf(&b, "- arms: %s\n", armsLine(c))
	fmt.Fprintf(&b, "- seeds: %s\n", seedsLine(c.Seeds))
	fmt.Fprintf(&b, "- machine: kernel set %s on %s, %s, %d CPUs (GOMAXPROCS %d); commit %s (provenance.json has every attempt)\n",
		prov.KernelSet, prov.CPU, prov.Go, prov.CPUs, prov.GOMAXPROCS, prov.Commit)
	fmt.Fprintf(&b, "- evaluation in training: the first %d %s instances, %s, at update 0, every %d updates and at the end\n",
		c.Eval.Episodes, c.Eval.split(), c.Eval.Modes, c.Eval.Every)
	if c.Eval.Test > 0 {
		fmt.Fprintf(&b, "- final evaluation: the first %d test instances, greedy and sampled, after the last update "+
			"(nothing else reads the test split)\n", c.Eval.Test)
	}
	b.WriteString("\n")

	if t := s.TestTable(); t != "" {
		fmt.Fprintf(&b, "## Final, on %d test instances, mean ± std over seeds\n\n", c.Eval.Test)
		b.WriteString("Sample standard deviation over the seeds (– for one seed). Evidence use: how much the final " +
			"answer follows the evidence; I_AS: the gain in exact-posterior mass on the truth from the agent's queries; " +
			"C_BT: the agent's own belief gains.\n\n")
		b.WriteString(t)
		if t := s.ExtraTestTable(); t != "" {
			b.WriteString("\nThe task's own counts per episode (tool turns, messages, tool errors, the tool-turn ratio, …):\n\n")
			b.WriteString(t)
		}
		b.WriteString("\nSuccess per seed:\n\n")
		b.WriteString(s.TestSeedTable(c.Seeds))
		if len(s.TestBaselines) > 0 {
			fmt.Fprintf(&b, "\nScripted policies on the same %d test instances:\n\n", c.Eval.Test)
			b.WriteString(baselineTable(s.TestBaselines))
		}
		b.WriteString(pairedSections(c, s))
		b.WriteString("\n")
	}
	if c.Tuning {
		b.WriteString("## Selection\n\n")
		fmt.Fprintf(&b, "The arms ranked by the selection rule fixed before the sweep (docs/arew.md, \"Protocol\"): "+
			"mean final sampled success on the %s split over all %d seeds, then greedy; the first is selected.\n\n",
			c.Eval.split(), len(c.Seeds))
		b.WriteString(s.RankingTable(len(c.Seeds)))
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "## Base and final in training (%s split), mean ± std over seeds\n\n", c.Eval.split())
	b.WriteString("Sample standard deviation over the seeds (– for one seed); final counts only complete runs.\n\n")
	b.WriteString(s.Table())
	if len(s.Baselines) > 0 {
		fmt.Fprintf(&b, "\nScripted policies on the same %d %s instances:\n\n", s.Episodes, c.Eval.split())
		b.WriteString(s.BaselineTable())
	}

	b.WriteString("\n## Updates to a sampled success threshold, per seed\n\n")
	b.WriteString("The first evaluated update whose sampled success reached the threshold (– never; an upper bound on the " +
		"true crossing, to within the evaluation interval).\n\n")
	b.WriteString(s.ThresholdTable(c.Seeds))

	if len(plots) > 0 {
		fmt.Fprintf(&b, "\n## Curves (%s evaluations; thin: one seed, bold: the mean over seeds, dashed: scripted)\n\n", plotMode(s))
		for _, p := range plots {
			name := strings.TrimSuffix(filepath.Base(p), ".svg")
			fmt.Fprintf(&b, "![%s](%s)\n\n", name, filepath.ToSlash(p))
		}
	}
	if len(samples) > 0 {
		fmt.Fprintf(&b, "## What the policies do: the latest sampled evaluation of seed %d\n\n", c.Seeds[0])
		b.WriteString("Each line is one turn: what the agent saw since its last turn | its tokens, the step's kind " +
			"and critique. Every evaluation's first episodes are in <arm>/seed-<s>/samples.jsonl.\n\n")
		for _, name := range s.ArmOrder {
			for _, smp := range samples[name] {
				fmt.Fprintf(&b, "%s, update %d, %s\n\n", name, smp.Update, smp.Transcript.Markdown())
			}
		}
	}
	b.WriteString("Files: study.json (the config), summary.json (what scripts read), provenance.json (each attempt's commit, " +
		"kernel set, CPU and wall time), console.log (what each attempt printed), <arm>/seed-<s>/ (a single run's folder: config.json, " +
		"metrics.jsonl, eval.jsonl, samples.jsonl, provenance.json, tb/ (TensorBoard: `tensorboard --logdir <study folder>`), report.md, " +
		"checkpoints/ with the run's last checkpoint set; `go run ./cmd/train -resume <arm>/seed-<s> -updates N` extends a run), plots/.\n")
	return b.String()
}

// ThresholdTable is the Markdown table of updates_to: per arm and
// threshold, the first evaluated update each seed's run reached it at
// (– never, "not run"), and how many runs reached it.
func (s *Summary) ThresholdTable(seeds []uint64) string {
	header := seedColumns(seeds, "arm", "threshold")
	var rows [][]string
	for _, name := range s.ArmOrder {
		runs := s.Arms[name].Runs
		for _, t := range s.Thresholds {
			key := thresholdKey(t)
			row, reached := []string{name, key}, 0
			for _, seed := range seeds {
				cell := "not run"
				for _, r := range runs {
					if r.Seed == seed {
						cell = "–"
						if u := r.UpdatesTo[key]; u != nil {
							cell = strconv.Itoa(*u)
							reached++
						}
					}
				}
				row = append(row, cell)
			}
			rows = append(rows, append(row, fmt.Sprintf("%d/%d", reached, len(runs))))
		}
	}
	return run.MarkdownTable(append(header, "reached"), 1, rows)
}

func baseLine(c Config) string {
	switch b := c.Base; {
	case b.Path != "":
		return b.Path
	case b.Shipped != "":
		return fmt.Sprintf("the shipped base %s (%s; `go run ./cmd/train -build-base %s` rebuilds it)", b.Shipped, BaseFile, b.Shipped)
	}
	b := c.Base.Build
	return fmt.Sprintf("built in the study (%s): a %s policy, %d SFT epochs, seed %d, on %s", BaseFile, b.Preset, b.SFT.Epochs, b.Seed, demoList(b.Sources))
}

// demoList names a build's sources: "8192 locked(0.03,0.03) [hasty], …".
func demoList(src []rl.DemoSource) string {
	out := ""
	for i, s := range src {
		if i > 0 {
			out += " + "
		}
		out += fmt.Sprintf("%d %s(%g,%g) [%s]", s.Demos, s.Policy.Kind, s.Policy.QAS, s.Policy.QBT, s.Name)
		if n := s.Noise; n != nil {
			kind := n.Kind
			if kind == "" {
				kind = "AS and BT"
			}
			out += fmt.Sprintf(" with noise: %s on %g%% of the %s turns, not trained on", n.Policy.Kind, 100*n.Share, kind)
		}
		if r := s.Epochs; r != nil {
			out += fmt.Sprintf(" in epochs %d–%d", r.First, r.Last)
		}
	}
	return out
}

func armsLine(c Config) string {
	parts := make([]string, len(c.Arms))
	for i, a := range c.Arms {
		x := a.AREW
		if !x.Active(x.Start) {
			parts[i] = a.Name + " (no AREW"
		} else {
			parts[i] = fmt.Sprintf("%s (AREW %s, λ %g, %s", a.Name, x.Critiques, x.Lambda, x.Mode)
			if x.Perturb.Flip > 0 {
				parts[i] += fmt.Sprintf(", flip α %g", x.Perturb.Flip)
			}
		}
		for _, ch := range []struct {
			what string
			raw  []byte
		}{{"task", a.TaskConfig}, {"ppo", a.PPO}, {"grpo", a.GRPO}} {
			if !isEmptyJSON(ch.raw) {
				parts[i] += fmt.Sprintf("; %s %s", ch.what, ch.raw)
			}
		}
		parts[i] += ")"
	}
	return strings.Join(parts, "; ")
}

func seedsLine(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ", ")
}

// f3 writes x with three decimals, or – when it is not finite.
func f3(x run.Num) string { return run.Fixed(float64(x), 3) }

// wallLine is the study's wall time: this attempt's, and with earlier
// attempts the sum over those provenance.json records (an attempt killed
// before it finished records none).
func wallLine(wall time.Duration, attempts []run.Provenance) string {
	if len(attempts) < 2 {
		return progress.Duration(wall) + " wall time"
	}
	total, timed := wall, 1
	for _, a := range attempts[:len(attempts)-1] {
		if a.WallSeconds > 0 {
			total += time.Duration(a.WallSeconds * float64(time.Second))
			timed++
		}
	}
	return fmt.Sprintf("%s wall time in this attempt, %s in the %d of %d attempts provenance.json times", progress.Duration(wall),
		progress.Duration(total), timed, len(attempts))
}

// pairedSections are the paired test differences against the reference
// arm and against every direction control: an arm whose critiques' signs
// are coin flips (Perturb.Flip = DirectionControlFlip), which has AREW's
// extra gradient without its direction.
func pairedSections(c Config, s *Summary) string {
	if c.Reference == "" {
		return ""
	}
	var b strings.Builder
	for _, mode := range []rl.EvalMode{rl.ModeSampled, rl.ModeGreedy} {
		fmt.Fprintf(&b, "\nPaired differences in %s test success against %s, seed by seed:\n\n", mode, c.Reference)
		b.WriteString(s.PairedTable(c.Reference, mode, c.Margin, c.Seeds))
	}
	for _, a := range c.Arms {
		if a.AREW.Perturb.Flip == DirectionControlFlip {
			fmt.Fprintf(&b, "\nPaired differences in sampled test success against %s, the direction control "+
				"(its critiques' signs are coin flips), seed by seed:\n\n", a.Name)
			b.WriteString(s.PairedTable(a.Name, rl.ModeSampled, c.Margin, c.Seeds))
		}
	}
	return b.String()
}
