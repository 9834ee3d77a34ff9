package study

import (
	"context"
	"fmt"

	"arew/rl/run"
	"arew/tasks"
)

// scriptedBaselines plays random and strong on the first n instances of
// split (from the first seed) and finds the best constant answer on them
// (run.ScriptedBaselines).
func scriptedBaselines(ctx context.Context, task tasks.Task, c Config, split tasks.Split, n int) ([]run.Baseline, error) {
	if ctx.Err() != nil {
		return nil, run.ErrInterrupted
	}
	bs, err := run.ScriptedBaselines(task, []tasks.PolicySpec{{Kind: "random"}, {Kind: "strong"}}, split, n, c.Seeds[0])
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	return bs, nil
}
