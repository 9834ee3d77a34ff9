package act

import (
	"context"
	"fmt"
	"testing"
	"time"

	"arew/model"
	"arew/tasks/textworld"
)

// BenchmarkILEpoch times one epoch of act-table1's IL row on ALFWorld's
// full training split (400 games): the tiny preset, minibatches of 16.
//
//	go test -run NONE -bench ILEpoch -benchtime 1x ./rl/act/
func BenchmarkILEpoch(b *testing.B) {
	cfg := tableRun("alfworld", 1)
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, cfg.Collect.History)
	if err != nil {
		b.Fatal(err)
	}
	ctxLen := AutoContext(env, pairs, cfg.Collect.MaxAction)
	mc, err := model.NewConfig(cfg.Preset, env.Vocab.Size(), ctxLen)
	if err != nil {
		b.Fatal(err)
	}
	init, err := model.New(mc, 1)
	if err != nil {
		b.Fatal(err)
	}
	train := ILData(env.Vocab, pairs)
	for _, bucket := range []int{0, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("bucket=%d", bucket), func(b *testing.B) {
			sft := cfg.IL
			sft.Epochs, sft.Bucket = 3, bucket
			for range b.N {
				t0, c0 := time.Now(), cpuSeconds()
				_, ms, err := TrainSFT(context.Background(), init, train, sft)
				if err != nil {
					b.Fatal(err)
				}
				n := float64(len(ms))
				b.ReportMetric(time.Since(t0).Seconds()/n, "s/epoch")
				b.ReportMetric((cpuSeconds()-c0)/n, "cpu-s/epoch")
				b.ReportMetric(ms[0].Seconds, "s/first-epoch")
				b.ReportMetric(ms[len(ms)-1].TrainLoss, "loss")
			}
		})
	}
}
