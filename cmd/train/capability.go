package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	arewrun "arew/rl/run"
	"arew/rl/study"
)

// capabilityInvocation checks a -capability command line: a recipe of
// study.Capabilities, with only -out, -force and -name.
func capabilityInvocation(inv invocation, o *overrides, configPath string) (invocation, error) {
	if _, ok := study.Capabilities[inv.capability]; !ok {
		return inv, usageErrorf("-capability: no recipe %q (recipes: %s)", inv.capability, strings.Join(study.CapabilityNames(), ", "))
	}
	var bad []string
	for name := range o.set {
		if name != "name" {
			bad = append(bad, "-"+name)
		}
	}
	for flagName, given := range map[string]bool{"-config": configPath != "", "-study": inv.study != "",
		"-study-config": inv.studyConfig != "", "-build-base": inv.buildBase != "", "-resume": inv.resume != "", "-act": inv.act != ""} {
		if given {
			bad = append(bad, flagName)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return inv, usageErrorf("-capability takes only -out, -force and -name; got %s", strings.Join(bad, ", "))
	}
	if n := o.raw["name"]; n != "" && (n != filepath.Base(n) || n == "." || n == ".." || strings.ContainsAny(n, `/\`)) {
		return inv, usageErrorf("-name %q: want one plain folder name", n)
	}
	inv.studyName = o.raw["name"]
	return inv, nil
}

// runCapability trains and evaluates a capability recipe
// (study.BuildCapability) into <out>/capability-<recipe>/ (or -name) and
// prints its table.
func runCapability(ctx context.Context, inv invocation, out io.Writer) error {
	name := "capability-" + inv.capability
	if inv.studyName != "" {
		name = inv.studyName
	}
	dir := filepath.Join(inv.out, name)
	if err := arewrun.ClearDir(dir, inv.force); err != nil {
		return err
	}
	sum, err := study.BuildCapability(ctx, inv.capability, dir, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%s\nreport %s\n", sum.Report(), filepath.Join(dir, study.BaseReportFile))
	return nil
}
