package rl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"arew/model"
)

// BenchmarkPPOUpdateFloDial is one PPO + AREW update on flodial-easy with
// the small preset at a realistic size: 64 episodes, minibatches of 16,
// 2 epochs, a separate critic. It reports the update's phases in seconds
// (rollout; old log-probs + values; optimisation) and the token rates.
//
//	go test -run '^$' -bench PPOUpdateFloDial -benchtime 3x ./rl/
func BenchmarkPPOUpdateFloDial(b *testing.B) {
	task := flodialEasy(b)
	cfg, err := model.NewConfig("small", task.Vocab().Size(), task.MaxTokens())
	require.NoError(b, err)
	policy, err := model.New(cfg, 1)
	require.NoError(b, err)
	pc := DefaultPPOConfig()
	pc.Advantage.AREW = AREW{Critiques: "as+bt", Lambda: 0.5, Mode: "step"}
	ppo, err := NewPPO(task, policy, nil, pc)
	require.NoError(b, err)
	defer ppo.Close()
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
}
