//go:build unix

package act

import (
	"context"
	"strconv"
	"testing"
	"time"

	"arew/tasks/textworld"
)

// BenchmarkACTStage times the ACT stage of act-table1's ALFWorld cell,
// each group's prompt shared in the training graph (the default) and
// plain (PlainPrompts): π_θ0 and D_critic of seed 11 as Run builds them
// on ACT_BENCH_GAMES training games (default 200), then ACT_BENCH_UPDATES
// updates (default 4) of each, from the same π_θ0. It logs CPU and wall
// seconds per update and the metrics of every update, which agree between
// the two to float32 rounding:
//
//	GOMAXPROCS=1 go test -run NONE -bench ACTStage -benchtime 1x -timeout 60m ./rl/act/
func BenchmarkACTStage(b *testing.B) {
	games, err := strconv.Atoi(envOr("ACT_BENCH_GAMES", "200"))
	if err != nil {
		b.Fatal(err)
	}
	updates, err := strconv.Atoi(envOr("ACT_BENCH_UPDATES", "4"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := tableRun("alfworld", updates)
	cfg.Games = games
	cfg.Seed, cfg.Collect.Seed, cfg.Init.Seed, cfg.ACT.GRPO.Seed = 11, 11, 11, 11
	env, pairs, ctxLen := benchPairs(b, cfg)
	pi0, _, err := InitialPolicy(context.Background(), env.Vocab, cfg.Preset, ctxLen, pairs, cfg.InitShare, cfg.Choice, cfg.Init, cfg.Seed)
	if err != nil {
		b.Fatal(err)
	}
	data, _, err := CriticData(pi0, env, DecodeTrie, textworld.Train, 0, cfg.Games, cfg.Collect)
	if err != nil {
		b.Fatal(err)
	}
	data, _ = FitCritic(env, cfg.Choice, data, ctxLen)
	b.Logf("%d games, %d critic examples, context %d, %d updates of %d × %d", cfg.Games, len(data), ctxLen, updates, cfg.ACT.GRPO.Prompts, cfg.ACT.GRPO.GroupSize)
	for range b.N {
		for _, plain := range []bool{true, false} {
			stage := cfg.ACT
			stage.PlainPrompts = plain
			t0, c0 := time.Now(), cpuSeconds()
			_, ms, err := TrainACT(context.Background(), pi0, env, cfg.Choice, data, stage)
			if err != nil {
				b.Fatal(err)
			}
			n := float64(len(ms))
			b.Logf("plain prompts %v: %.2f CPU-s and %.2f wall-s per update", plain, (cpuSeconds()-c0)/n, time.Since(t0).Seconds()/n)
			for _, m := range ms {
				b.Logf("  update %d: success %.3f, loss %.6f, ref KL %.6f, gradient norm %.6f", m.Update, m.Success, m.PolicyLoss, m.RefKL, m.GradNorm)
			}
		}
	}
}

// benchPairs is cfg's environment, the expert pairs of its training
// games and the context they need, as Run makes them.
func benchPairs(b *testing.B, cfg Config) (*Env, []textworld.Pair, int) {
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, cfg.Collect.History)
	if err != nil {
		b.Fatal(err)
	}
	return env, pairs, AutoContext(env, pairs, cfg.Collect.MaxAction)
}

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds() float64 {
	c, _ := processCPU()
	return c
}
