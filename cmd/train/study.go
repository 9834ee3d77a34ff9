package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	arewrun "arew/rl/run"
	"arew/rl/study"
)

// studyInvocation checks a -study or -build-base command line (their
// flags: jobs).
func studyInvocation(inv invocation, o *overrides) (invocation, error) {
	if inv.buildBase != "" {
		if err := study.CheckBaseName(inv.buildBase); err != nil {
			return inv, err
		}
	} else if suite, ok := study.Suites[inv.study]; ok {
		if _, err := suite().Runnable(); err != nil {
			return inv, arewrun.InputErrorf("-study: %v", err)
		}
		if o.raw["name"] != "" || o.raw["init"] != "" || inv.studyConfig != "" {
			return inv, arewrun.InputErrorf("-study %s: a suite of studies takes no -name, -init or -study-config", inv.study)
		}
	} else if _, err := study.Preset(inv.study); err != nil {
		return inv, arewrun.InputErrorf("-study: %v", err)
	}
	inv.studyName, inv.studyBase = o.raw["name"], o.raw["init"]
	return inv, nil
}

// resumeInvocation checks a -resume command line: the folder is a
// study's (study.json: an AREW or an ACT study) or a run's (config.json);
// a study takes only -cache and -jobs, a run only -updates.
func resumeInvocation(inv invocation, o *overrides, given map[string]bool) (invocation, error) {
	_, studyErr := os.Stat(filepath.Join(inv.resume, arewrun.SweepFile))
	_, runErr := os.Stat(filepath.Join(inv.resume, arewrun.ConfigFile))
	_, capErr := os.Stat(filepath.Join(inv.resume, study.BaseCheckpointDir, arewrun.ManifestFile))
	what, takes := "a study's folder takes only -cache and -jobs", []string{"out", "cache", "jobs"}
	switch {
	case capErr == nil:
		job, _, err := study.BuildOf(inv.resume)
		if err != nil {
			return inv, arewrun.InputErrorf("-resume: %v", err)
		}
		what, takes = "a "+job+" build's folder takes no other flag", []string{"out"}
		inv.resumeBuild = job
	case studyErr == nil:
		var kind struct{ Kind string }
		if err := arewrun.ReadJSON(filepath.Join(inv.resume, arewrun.SweepFile), arewrun.MaxConfigBytes, &kind); err != nil {
			return inv, arewrun.InputErrorf("-resume: %v", err)
		}
		inv.resumeStudy, inv.resumeACT = kind.Kind == "", kind.Kind != "" // ACT's studies have a kind
	case runErr == nil:
		what, takes = "a run's folder takes only -updates (to extend it)", []string{"out", "updates"}
	default:
		return inv, arewrun.InputErrorf("-resume %s: not a study folder (no %s), a run folder (no %s) nor a capability or base build's (no %s)",
			inv.resume, arewrun.SweepFile, arewrun.ConfigFile, filepath.Join(study.BaseCheckpointDir, arewrun.ManifestFile))
	}
	if bad := refused(given, "resume", takes...); len(bad) > 0 {
		return inv, arewrun.InputErrorf("-resume %s: %s; got %s", inv.resume, what, strings.Join(bad, ", "))
	}
	inv.resumeUpdates = -1
	if raw, ok := o.raw["updates"]; ok {
		inv.resumeUpdates, _ = strconv.Atoi(raw) // its parse accepted it
		if inv.resumeUpdates < 0 {
			return inv, arewrun.InputErrorf("-updates must be ≥ 0, got %d", inv.resumeUpdates)
		}
	}
	return inv, nil
}

// runStudy runs the preset into <out>/<name>/ (or resumes the study in
// -resume's folder) and prints the final sampled and greedy success per
// arm and where the report is.
func runStudy(ctx context.Context, inv invocation, out io.Writer) error {
	if inv.resumeStudy {
		return finishStudy(ctx, inv, out)
	}
	if suite, ok := study.Suites[inv.study]; ok {
		return runSuite(ctx, suite(), inv, out)
	}
	cfg, err := study.Preset(inv.study)
	if err != nil {
		return arewrun.InputErrorf("-study: %v", err)
	}
	if inv.studyConfig != "" {
		// A JSON object inline, as -task-config takes, or a file.
		data := []byte(inv.studyConfig)
		if !strings.HasPrefix(strings.TrimSpace(inv.studyConfig), "{") {
			var err error
			if data, err = arewrun.ReadConfigFile(inv.studyConfig); err != nil {
				return arewrun.InputErrorf("-study-config: %v", err)
			}
		}
		if err := study.DecodeConfig(data, &cfg); err != nil {
			return arewrun.InputErrorf("-study-config %s: %v", inv.studyConfig, err)
		}
	}
	if inv.studyName != "" {
		cfg.Name = inv.studyName
	}
	if inv.studyBase != "" {
		cfg.Base = study.Base{Path: inv.studyBase}
	}
	if err := cfg.Validate(); err != nil {
		return arewrun.InputErrorf("%v", err)
	}
	dir := filepath.Join(inv.out, cfg.Name)
	if err := arewrun.ClearDir(dir, inv.force); err != nil {
		return fmt.Errorf("%w (or -resume %s to continue it)", err, dir)
	}
	sum, err := study.Run(ctx, cfg, dir, out)
	return studyResult(out, dir, sum, err)
}

// runSuite runs a suite of studies into <out>/<suite>/, one folder per
// study (study.RunSuite): run again, it continues the studies there;
// -force starts over.
func runSuite(ctx context.Context, s study.Suite, inv invocation, out io.Writer) error {
	dir := filepath.Join(inv.out, s.Name)
	if inv.force {
		if err := arewrun.ClearDir(dir, true); err != nil {
			return err
		}
	}
	sums, err := study.RunSuite(ctx, s, dir, out)
	return sweepResult(out, dir, err, func() {
		for _, sum := range sums {
			printStudy(out, sum, filepath.Join(dir, sum.Name))
		}
		fmt.Fprintf(out, "\nsuite report %s\n", filepath.Join(dir, study.SuiteReportFile))
	})
}

// finishStudy resumes the study of -resume's folder, whose study.json is
// its whole config.
func finishStudy(ctx context.Context, inv invocation, out io.Writer) error {
	dir := inv.resume
	data, err := arewrun.ReadConfigFile(filepath.Join(dir, arewrun.SweepFile))
	if err != nil {
		return arewrun.InputErrorf("-resume: %v", err)
	}
	var cfg study.Config
	if err := study.DecodeConfig(data, &cfg); err != nil {
		return arewrun.InputErrorf("-resume %s: %v", dir, err)
	}
	if err := cfg.Validate(); err != nil {
		return arewrun.InputErrorf("-resume %s: %v", dir, err)
	}
	sum, err := study.Resume(ctx, cfg, dir, out)
	return studyResult(out, dir, sum, err)
}

// studyResult prints what a study returned and maps its error to the
// command's (sweepResult).
func studyResult(out io.Writer, dir string, sum *study.Summary, err error) error {
	return sweepResult(out, dir, err, func() {
		if sum != nil {
			printStudy(out, sum, dir)
		}
	})
}

// sweepResult ends a sweep (a study, an ACT study) that returned err: on
// bad input nothing is printed; otherwise show prints its summary, and an
// interrupted sweep says how to continue.
func sweepResult(out io.Writer, dir string, err error, show func()) error {
	var input *arewrun.InputError
	if errors.As(err, &input) {
		return err
	}
	show()
	if errors.Is(err, arewrun.ErrInterrupted) {
		fmt.Fprintf(out, "continue with -resume %s: its complete runs are kept\n", dir)
	}
	return err
}

// runBuildBase rebuilds a shipped base into <out>/<name>/ (name: the
// base's own unless -name) and prints its evaluation.
func runBuildBase(ctx context.Context, inv invocation, out io.Writer) error {
	var sum *study.BaseSummary
	dir := inv.resume
	var err error
	if inv.resumeBuild == study.JobBuildBase {
		sum, err = study.ResumeShipped(ctx, dir, out)
	} else if dir, err = jobDir(inv, inv.buildBase); err == nil {
		sum, err = study.BuildShipped(ctx, inv.buildBase, dir, out)
	}
	if err != nil {
		return buildStopped(err, dir)
	}
	fmt.Fprintf(out, "\n== base %s (first %d validation instances)\n%s\n", sum.Name, sum.Episodes, study.BaseTable(sum.Rows))
	fmt.Fprintf(out, "%s sha256 %s; identical to the shipped base: %v\nreport %s\n",
		filepath.Join(dir, study.BaseFile), sum.SHA256, sum.IsShipped, filepath.Join(dir, study.BaseReportFile))
	return nil
}

// printStudy prints the study's mean ± std table, the scripted baselines
// and where the report and the plots are.
func printStudy(out io.Writer, s *study.Summary, dir string) {
	fmt.Fprintf(out, "\n== study %s: %s; mean ± std over seeds (%s split, in training)\n", s.Name, s.Status, s.Split)
	fmt.Fprint(out, s.Table())
	if len(s.Baselines) > 0 {
		fmt.Fprintf(out, "\nscripted policies on the same %d %s instances:\n", s.Episodes, s.Split)
		fmt.Fprint(out, s.BaselineTable())
	}
	if t := s.TestTable(); t != "" {
		fmt.Fprintf(out, "\n== final: %d test instances, mean ± std over seeds\n%s", s.Test, t)
		fmt.Fprintf(out, "\nscripted policies on the same %d test instances:\n%s", s.Test, s.TestBaselineTable())
	}
	fmt.Fprintf(out, "\nreport  %s\nsummary %s\n", filepath.Join(dir, study.ReportFile), filepath.Join(dir, study.SummaryFile))
	if plots, _ := filepath.Glob(filepath.Join(dir, study.PlotsDir, "*.svg")); len(plots) > 0 {
		fmt.Fprintf(out, "plots   %s\n", strings.Join(plots, " "))
	}
}

// jobDir is a job's folder, <out>/<name> (-name's, else def), cleared
// for it (arewrun.ClearDir: -force replaces one that is not empty).
func jobDir(inv invocation, def string) (string, error) {
	if inv.studyName != "" {
		def = inv.studyName
	}
	dir := filepath.Join(inv.out, def)
	return dir, arewrun.ClearDir(dir, inv.force)
}

// buildStopped is err, or when it is an interrupt of a capability or
// base build, an interruption saying what dir keeps and how to go on: the
// checkpoint set after the last finished epoch and the -resume that
// continues from it, or, stopped in the first epoch, nothing.
func buildStopped(err error, dir string) error {
	if !errors.Is(err, arewrun.ErrInterrupted) {
		return err
	}
	if _, serr := os.Stat(filepath.Join(dir, study.BaseCheckpointDir, arewrun.ManifestFile)); serr != nil {
		return &interruption{fmt.Sprintf("interrupted before the first epoch ended; %s keeps no checkpoint: "+
			"the same command with -force builds it from the start", dir)}
	}
	return &interruption{fmt.Sprintf("interrupted; %s keeps the build's checkpoint set after its last finished epoch (%s/): "+
		"-resume %s goes on from it", dir, study.BaseCheckpointDir, dir)}
}
