package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"arew/rl/study"
)

// studyInvocation checks a -study command line: besides -out and -force
// only the flags in studyFlags may be given.
func studyInvocation(inv invocation, o *overrides, configPath string) (invocation, error) {
	if _, err := study.Preset(inv.study); err != nil {
		return inv, usageErrorf("-study: %v", err)
	}
	var bad []string
	for name := range o.set {
		if !studyFlags[name] {
			bad = append(bad, "-"+name)
		}
	}
	if configPath != "" {
		bad = append(bad, "-config")
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return inv, usageErrorf("-study takes only -out, -force, -name, -init and -study-config; got %s", strings.Join(bad, ", "))
	}
	var probe Config
	for name, apply := range o.set {
		_ = apply(&probe)
		switch name {
		case "name":
			inv.studyName = probe.Name
		case "init":
			inv.studyBase = probe.Model.Init
		}
	}
	return inv, nil
}

// runStudy runs the preset into <out>/<name>/ and prints the final
// sampled and greedy success per arm and where the report is.
func runStudy(ctx context.Context, inv invocation, out io.Writer) error {
	cfg, err := study.Preset(inv.study)
	if err != nil {
		return usageErrorf("-study: %v", err)
	}
	if inv.studyConfig != "" {
		data, err := os.ReadFile(inv.studyConfig)
		if err != nil {
			return usageErrorf("-study-config: %v", err)
		}
		if err := study.DecodeConfig(data, &cfg); err != nil {
			return usageErrorf("-study-config %s: %v", inv.studyConfig, err)
		}
	}
	if inv.studyName != "" {
		cfg.Name = inv.studyName
	}
	if inv.studyBase != "" {
		cfg.Base = study.Base{Path: inv.studyBase}
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	dir := filepath.Join(inv.out, cfg.Name)
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		if !inv.force {
			return usageErrorf("study folder %s exists and is not empty: choose another -name, or -force to replace it", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("replace study folder: %w", err)
		}
	}
	sum, err := study.Run(ctx, cfg, dir, out)
	var input *study.InputError
	switch {
	case errors.As(err, &input):
		return usageErrorf("%v", err)
	case errors.Is(err, study.ErrInterrupted):
		err = errInterrupted
	}
	if sum != nil {
		printStudy(out, sum, dir)
	}
	return err
}

func printStudy(out io.Writer, s *study.Summary, dir string) {
	fmt.Fprintf(out, "\n== study %s: %s; final success over seeds (test split, mean ± std)\n", s.Name, s.Status)
	fmt.Fprintf(out, "%-12s %5s %17s %17s\n", "arm", "runs", "sampled", "greedy")
	for _, name := range s.ArmOrder {
		var sampled, greedy []float64
		for _, r := range s.Arms[name].Runs {
			if r.Final == nil {
				continue
			}
			if m := r.Final.Sampled; m != nil {
				sampled = append(sampled, float64(m.Success))
			}
			if m := r.Final.Greedy; m != nil {
				greedy = append(greedy, float64(m.Success))
			}
		}
		fmt.Fprintf(out, "%-12s %5d %17s %17s\n", name, max(len(sampled), len(greedy)), meanPM(sampled), meanPM(greedy))
	}
	fmt.Fprintf(out, "\nreport %s, summary %s, plots %s\n", filepath.Join(dir, study.ReportFile),
		filepath.Join(dir, study.SummaryFile), filepath.Join(dir, study.PlotsDir, "*.png"))
}

// meanPM is "mean ± sample std" of xs (– where undefined).
func meanPM(xs []float64) string {
	mean, std, n := study.MeanStd(xs)
	if n == 0 {
		return "–"
	}
	return f3(mean) + " ± " + f3(std)
}
