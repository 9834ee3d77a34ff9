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
// its AS proxy and I_AS are the strong queries'.
func EvaluateHybrid(ctx context.Context, policy *model.Model, cfg rl.BaseConfig, n int, out io.Writer) ([]BaseRow, error) {
	if out == nil {
		out = io.Discard
	}
	src, _, err := rl.BaseSources(cfg)
	if err != nil {
		return nil, err
	}
	var rows []BaseRow
	for _, s := range src {
		task, err := tasks.ScriptedTurns(s.Task, tasks.PolicySpec{Kind: "strong"}, tasks.AS, 1)
		if err != nil {
			return rows, err
		}
		for _, greedy := range []bool{true, false} {
			if ctx.Err() != nil {
				return rows, run.ErrInterrupted
			}
			ec := rl.DefaultEvalConfig()
			ec.Episodes = n
			ec.Rollout.Sampler = rl.SamplerConfig{Greedy: greedy, Temperature: 1}
			mode := "sampled"
			if greedy {
				mode = "greedy"
			}
			res, err := rl.Evaluate(policy, task, ec)
			if err != nil {
				return rows, fmt.Errorf("evaluate %s: %w", task.Name(), err)
			}
			rows = append(rows, BaseRow{Source: s.Name, Policy: hybridPolicy + ", " + mode, Measures: run.MeasuresOf(res.Summary)})
			fmt.Fprintf(out, "%s under %s, %s: success %.3f\n", hybridPolicy, s.Name, mode, res.Summary.Success)
		}
	}
	return rows, nil
}
