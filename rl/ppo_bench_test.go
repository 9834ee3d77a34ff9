package rl

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/kernels"
	"arew/model"
)

// BenchmarkPPOUpdateFloDial is one PPO + AREW update on flodial-easy with
// the small preset at a realistic size: 64 episodes, minibatches of 16,
// 2 epochs, a separate critic. It reports the update's phases in seconds
// (rollout; old log-probs + values; optimisation) and the token rates.
//
// The timed updates are the steady state: one update runs first, untimed,
// because it allocates what every later one reuses (the graphs' outputs,
// the kernels' scratch and worker pool, the rollout's trajectories and
// episodes); its bytes and allocations are
// reported as first_MB and first_allocs.
//
//	go test -run '^$' -bench PPOUpdateFloDial -benchtime 3x ./rl/
func BenchmarkPPOUpdateFloDial(b *testing.B) { benchPPOUpdateFloDial(b, false) }

// BenchmarkPPOUpdateHeadRows is BenchmarkPPOUpdateFloDial with
// PolicyConfig.HeadRows: the actor's and the critic's training graphs
// with their last block and heads at the agent predictions only.
//
//	go test -run '^$' -bench PPOUpdateHeadRows -benchtime 3x ./rl/
func BenchmarkPPOUpdateHeadRows(b *testing.B) { benchPPOUpdateFloDial(b, true) }

func benchPPOUpdateFloDial(b *testing.B, headRows bool) {
	task := flodialEasy(b)
	cfg, err := model.NewConfig("small", task.Vocab().Size(), task.MaxTokens())
	require.NoError(b, err)
	policy, err := model.New(cfg, 1)
	require.NoError(b, err)
	pc := DefaultPPOConfig()
	pc.Advantage.AREW = AREW{Critiques: "as+bt", Lambda: 0.5, Mode: kernels.MarginStep}
	pc.Policy.HeadRows = headRows
	ppo, err := NewPPO(task, policy, nil, pc)
	require.NoError(b, err)
	defer ppo.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = ppo.Update()
	require.NoError(b, err)
	runtime.ReadMemStats(&after)
	b.ReportAllocs()
	var roll, prep, opt, rtok, ttok float64
	for b.Loop() {
		m, err := ppo.Update()
		require.NoError(b, err)
		roll += m.RolloutSeconds
		prep += m.PrepSeconds
		opt += m.OptimSeconds
		rtok += m.RolloutTokensPerSec
		ttok += m.TrainTokensPerSec
	}
	n := float64(b.N)
	b.ReportMetric(roll/n, "rollout_s/op")
	b.ReportMetric(prep/n, "prep_s/op")
	b.ReportMetric(opt/n, "optim_s/op")
	b.ReportMetric(rtok/n, "rollout_tok/s")
	b.ReportMetric(ttok/n, "train_tok/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/1e6, "first_MB")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs), "first_allocs")
}
