package study

import (
	"context"
	"fmt"
	"io"

	"arew/model"
	"arew/rl"
	"arew/rl/run"
	"arew/tasks"
)

// hybridPolicy names the rows of EvaluateHybrid.
const hybridPolicy = "strong queries, base beliefs"

// EvaluateHybrid is the diagnostic that tells the two skills apart (docs/
// arew.md §8, "Capability: measured"): policy plays only the belief turns
// (BT) of each of cfg's sources, on its layout and style, after the strong
// scripted policy's queries (tasks.ScriptedTurns; the token stream is the
// task's own), greedy and sampled, on the first n validation instances.
// Its success beside the strong policy's measures the belief skill alone;
// its AS proxy and I_AS are the strong queries'. A source whose task has
// no belief turns (telecom) has no rows: there is nothing for the policy
// to play.
func EvaluateHybrid(ctx context.Context, policy *model.Model, cfg rl.BaseConfig, n int, out io.Writer) ([]BaseRow, error) {
	return eachSource(cfg, out, func(s rl.BaseSource, out io.Writer) ([]BaseRow, error) {
		if bt, err := tasks.HasTurns(s.Task, tasks.BT); err != nil || !bt {
			fmt.Fprintf(out, "%s under %s: no belief turns, no hybrid\n", hybridPolicy, s.Name)
			return nil, err
		}
		task, err := tasks.ScriptedTurns(s.Task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, 1)
		if err != nil {
			return nil, err
		}
		return playModes(ctx, policy, task, n, s.Name, hybridPolicy, out)
	})
}

// eachSource is the rows of rows for each of cfg's sources, in order (the
// rows made before an error too); progress lines go to out (nil: none).
func eachSource(cfg rl.BaseConfig, out io.Writer, rows func(s rl.BaseSource, out io.Writer) ([]BaseRow, error)) ([]BaseRow, error) {
	if out == nil {
		out = io.Discard
	}
	src, _, err := rl.BaseSources(cfg)
	if err != nil {
		return nil, err
	}
	var all []BaseRow
	for _, s := range src {
		rs, err := rows(s, out)
		all = append(all, rs...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// playModes plays policy on the first n validation instances of task,
// greedy then sampled at temperature 1 (seed 1), as the rows "<label>,
// <mode>" of source, each with its episodes split by repeats.
func playModes(ctx context.Context, policy *model.Model, task tasks.Task, n int, source, label string, out io.Writer) ([]BaseRow, error) {
	var rows []BaseRow
	for _, greedy := range []bool{true, false} {
		if ctx.Err() != nil {
			return rows, run.ErrInterrupted
		}
		ec := rl.DefaultEvalConfig()
		ec.Episodes = n
		ec.Rollout.Sampler = rl.SamplerConfig{Greedy: greedy, Temperature: 1}
		mode := rl.ModeSampled
		if greedy {
			mode = rl.ModeGreedy
		}
		res, err := rl.Evaluate(policy, task, ec)
		if err != nil {
			return rows, fmt.Errorf("evaluate %s under %s: %w", label, source, err)
		}
		episodes := make([]tasks.Measures, len(res.Trajectories))
		for i, tr := range res.Trajectories {
			episodes[i] = tr.Measures
		}
		rows = append(rows, BaseRow{Source: source, Policy: label + ", " + string(mode), Measures: run.MeasuresOf(res.Summary),
			Repeats: splitByRepeat(episodes)})
		fmt.Fprintf(out, "%s under %s, %s: success %.3f\n", label, source, mode, res.Summary.Success)
	}
	return rows, nil
}
