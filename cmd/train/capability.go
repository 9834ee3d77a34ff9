package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	arewrun "arew/rl/run"
	"arew/rl/study"
)

// capabilityInvocation checks a -capability command line: a recipe of
// study.Capabilities (its flags: jobs).
func capabilityInvocation(inv invocation, o *overrides) (invocation, error) {
	if _, ok := study.Capabilities[inv.capability]; !ok {
		return inv, arewrun.InputErrorf("-capability: no recipe %q (recipes: %s)", inv.capability, strings.Join(study.CapabilityNames(), ", "))
	}
	if n := o.raw["name"]; n != "" {
		if err := arewrun.ValidName("-name", n); err != nil {
			return inv, arewrun.InputErrorf("%v", err)
		}
	}
	inv.studyName = o.raw["name"]
	return inv, nil
}

// runCapability trains and evaluates a capability recipe
// (study.BuildCapability) into <out>/capability-<recipe>/ (or -name) and
// prints its table.
func runCapability(ctx context.Context, inv invocation, out io.Writer) error {
	dir, err := jobDir(inv, "capability-"+inv.capability)
	if err != nil {
		return err
	}
	sum, err := study.BuildCapability(ctx, inv.capability, dir, out)
	if err != nil {
		return buildStopped(err, dir, "policy.safetensors")
	}
	fmt.Fprintf(out, "\n%s\nreport %s\n", sum.Report(), filepath.Join(dir, study.BaseReportFile))
	return nil
}

// buildStopped is err, or when it is an interrupt of a base or
// capability build, which keeps no checkpoint and does not resume, an
// interruption saying what dir keeps: the trained policy (policyFile)
// when the interrupt came during the evaluation, else only the finished
// epochs' log.
func buildStopped(err error, dir, policyFile string) error {
	if !errors.Is(err, arewrun.ErrInterrupted) {
		return err
	}
	kept := "only the finished SFT epochs' log (" + study.BaseSFTFile + ")"
	if _, serr := os.Stat(filepath.Join(dir, policyFile)); serr == nil {
		kept = "the trained policy (" + policyFile + "), not evaluated: no report"
	}
	return &interruption{fmt.Sprintf("interrupted; %s keeps %s; a build does not resume: "+
		"the same command with -force builds it again from the start", dir, kept)}
}
