package main

import (
	"context"
	"fmt"
	"io"
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
// (study.BuildCapability) into <out>/capability-<recipe>/ (or -name), or
// goes on with the build stopped in -resume's folder
// (study.ResumeCapability), and prints its table.
func runCapability(ctx context.Context, inv invocation, out io.Writer) error {
	var sum *study.CapabilitySummary
	dir := inv.resume
	var err error
	if inv.resumeBuild == study.JobCapability {
		sum, err = study.ResumeCapability(ctx, dir, out)
	} else if dir, err = jobDir(inv, "capability-"+inv.capability); err == nil {
		sum, err = study.BuildCapability(ctx, inv.capability, dir, out)
	}
	if err != nil {
		return buildStopped(err, dir)
	}
	fmt.Fprintf(out, "\n%s\nreport %s\n", sum.Report(), filepath.Join(dir, study.BaseReportFile))
	return nil
}
