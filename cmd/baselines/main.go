// Command baselines prints, for each task setting, how the scripted policies
// score on the test split: random, the weak demonstrator (AS and BT quality
// knobs), the strong policy (greedy information gain + exact Bayes), and the
// best constant answer. Columns are the paper's measures (docs/arew.md §3–4).
//
//	go run ./cmd/baselines                     # every task, 500 test episodes
//	go run ./cmd/baselines -tasks pe-g-s3 -n 2000 -qas 0.1 -qbt 0.1
//	go run ./cmd/baselines -tasks flodial-hard -config '{"Critiques":"consistent"}'
//	go run ./cmd/baselines -tasks telecom-solo -split val -locked 0,0.03
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	arewrun "arew/rl/run"
	"arew/tasks"
	_ "arew/tasks/all"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage is printed; asking for it is no failure
		}
		fmt.Fprintln(os.Stderr, "baselines:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("baselines", flag.ContinueOnError)
	names := fs.String("tasks", "", "comma-separated task settings (default: all registered)")
	n := fs.Int("n", 500, "episodes per policy")
	split := fs.String("split", "test", "instance split: train, val or test")
	qas := fs.Float64("qas", 0.1, "weak demonstrator: probability of an informative query")
	qbt := fs.Float64("qbt", 0.1, "weak demonstrator: probability that a belief follows the evidence")
	seed := fs.Uint64("seed", 1, "seed of the policies' randomness")
	config := fs.String("config", "", `JSON overrides of each task's config, e.g. '{"Critiques":"consistent"}'`)
	locked := fs.String("locked", "", "comma-separated q values: add a row of the locked(q, q) demonstrator for each")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return fmt.Errorf("-n must be ≥ 1, got %d", *n)
	}
	if *qas < 0 || *qas > 1 || *qbt < 0 || *qbt > 1 {
		return fmt.Errorf("-qas and -qbt must lie in [0, 1]")
	}
	var sp tasks.Split
	if err := sp.UnmarshalText([]byte(*split)); err != nil {
		return fmt.Errorf("-split: %v", err)
	}
	list := tasks.Names()
	if *names != "" {
		list = strings.Split(*names, ",")
	}
	if len(list) == 0 {
		return fmt.Errorf("no task is registered")
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "task\tpolicy\tsuccess\treward\tAS proxy\tBT proxy\tI_AS\tC_BT\tevidence\tturns\tmalformed\t\n")
	specs := []tasks.PolicySpec{
		{Kind: "random"},
		{Kind: "weak", QAS: *qas, QBT: *qbt},
		{Kind: "strong"},
	}
	var counted []string // rows of the tasks' own counts, after the table
	for _, f := range strings.Split(*locked, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		q, err := strconv.ParseFloat(f, 64)
		if err != nil || !(q >= 0 && q <= 1) {
			return fmt.Errorf("-locked: %q is not a probability in [0, 1]", f)
		}
		specs = append(specs, tasks.PolicySpec{Kind: "locked", QAS: q, QBT: q})
	}
	for _, name := range list {
		task, err := tasks.New(strings.TrimSpace(name), json.RawMessage(*config))
		if err != nil {
			return err
		}
		bs, err := arewrun.ScriptedBaselines(task, specs, sp, *n, *seed)
		if err != nil {
			return fmt.Errorf("%s: %w", task.Name(), err)
		}
		for _, b := range bs {
			m := b.Measures
			fmt.Fprintf(tw, "%s\t%s\t", task.Name(), b.Name)
			for _, x := range []arewrun.Num{m.Success, m.Reward, m.ASProxy, m.BTProxy, m.IAS, m.CBT, m.Evidence} {
				fmt.Fprintf(tw, "%s\t", arewrun.Fixed(float64(x), 3))
			}
			fmt.Fprintf(tw, "%s\t%s\t\n", arewrun.Fixed(float64(m.Turns), 1), arewrun.Fixed(float64(m.Malformed), 2))
			if len(m.Extra) > 0 {
				counted = append(counted, countsLine(task.Name(), b.Name, m.Extra))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(counted) > 0 {
		fmt.Fprintln(out, "\nthe tasks' own counts, per episode:")
		fmt.Fprint(out, strings.Join(counted, ""))
	}
	return nil
}

// countsLine is one policy's own counts of a task (run.Measures.Extra),
// by name in sorted order.
func countsLine(task, policy string, extra map[string]arewrun.Num) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s:", task, policy)
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		fmt.Fprintf(&b, "  %s %s", k, arewrun.Fixed(float64(extra[k]), 2))
	}
	b.WriteString("\n")
	return b.String()
}
