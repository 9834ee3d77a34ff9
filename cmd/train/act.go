package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"arew/rl/act"
	arewrun "arew/rl/run"
)

// actInvocation checks a -act command line (its flags: jobs).
func actInvocation(inv invocation, o *overrides) (invocation, error) {
	if _, err := act.StudyPreset(inv.act); err != nil {
		return inv, arewrun.InputErrorf("-act: %v", err)
	}
	inv.studyName = o.raw["name"]
	return inv, nil
}

// runACT runs an ACT preset (rl/act.RunStudy) into <out>/<name>/, or
// resumes the ACT study of -resume's folder, and prints its table and
// where the report is.
func runACT(ctx context.Context, inv invocation, out io.Writer) error {
	dir, sum, err := startACT(ctx, inv, out)
	err = sweepResult(out, dir, err, func() {
		if sum != nil {
			fmt.Fprintf(out, "\n%s\nreport: %s\n", sum.Report(), filepath.Join(dir, "report.md"))
		}
	})
	var input *arewrun.InputError
	if errors.Is(err, arewrun.ErrInterrupted) && !errors.As(err, &input) {
		return &interruption{"interrupted; the report covers the finished runs; a run cut short keeps no checkpoint and -resume runs it again"}
	}
	return err
}

func startACT(ctx context.Context, inv invocation, out io.Writer) (string, *act.Summary, error) {
	if inv.resumeACT {
		var cfg act.StudyConfig
		if err := arewrun.ReadJSON(filepath.Join(inv.resume, arewrun.SweepFile), arewrun.MaxConfigBytes, &cfg); err != nil {
			return inv.resume, nil, arewrun.InputErrorf("-resume: %v", err)
		}
		sum, err := act.ResumeStudy(ctx, cfg, inv.resume, out)
		return inv.resume, sum, err
	}
	cfg, err := act.StudyPreset(inv.act)
	if err != nil {
		return "", nil, arewrun.InputErrorf("-act: %v", err)
	}
	if inv.studyName != "" {
		cfg.Name = inv.studyName
	}
	if err := cfg.Validate(); err != nil {
		return "", nil, arewrun.InputErrorf("%v", err)
	}
	dir := filepath.Join(inv.out, cfg.Name)
	if err := arewrun.ClearDir(dir, inv.force); err != nil {
		return dir, nil, err
	}
	sum, err := act.RunStudy(ctx, cfg, dir, out)
	return dir, sum, err
}
