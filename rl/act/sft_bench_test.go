//go:build unix

package act

import (
	"context"
	"fmt"
	"testing"
	"time"

	"arew/model"
)

// BenchmarkILEpoch times act-table1's IL row on ALFWorld's full training
// split (400 games; the tiny preset, minibatches of 16), three epochs, in
// the one full-length graph and in cut ones (rl.SFTConfig's Bucket and
// HeadRows): wall and CPU seconds per epoch, the first epoch's seconds
// (which build the cut graphs), and the last epoch's loss.
//
//	go test -run NONE -bench ILEpoch -benchtime 1x -timeout 30m ./rl/act/
func BenchmarkILEpoch(b *testing.B) {
	cfg := tableRun("alfworld", 1)
	env, pairs, ctxLen := benchPairs(b, cfg)
	mc, err := model.NewConfig(cfg.Preset, env.Vocab.Size(), ctxLen)
	if err != nil {
		b.Fatal(err)
	}
	init, err := model.New(mc, 1)
	if err != nil {
		b.Fatal(err)
	}
	train := ILData(env.Vocab, pairs)
	for _, c := range []struct {
		bucket   int
		headRows bool
	}{{0, false}, {16, false}, {32, false}, {64, false}, {0, true}, {32, true}} {
		b.Run(fmt.Sprintf("bucket=%d/head_rows=%v", c.bucket, c.headRows), func(b *testing.B) {
			sft := cfg.IL
			sft.Epochs, sft.Bucket, sft.HeadRows = 3, c.bucket, c.headRows
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
