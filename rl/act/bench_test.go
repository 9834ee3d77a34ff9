package act

import (
	"context"
	"testing"
)

// SmokeConfig is the end-to-end smoke run of the pipeline: alfworld, the
// tiny preset, the expert data of 60 training games (400 pairs), π_θ0 on
// a quarter of them, 30 updates per GRPO stage, 40 ID and 40 OOD episodes
// per row. It checks that every stage runs at a realistic size; it is not
// tuned and its numbers are not results.
func SmokeConfig() Config {
	cfg := DefaultConfig()
	cfg.Games, cfg.HeldOut, cfg.Episodes, cfg.OODEpisodes = 60, 20, 40, 40
	cfg.InitShare = 0.25
	cfg.ACT.Updates, cfg.RL.Updates = 30, 30
	return cfg
}

// BenchmarkPipelineSmoke runs SmokeConfig once per iteration and logs every
// row: go test -run NONE -bench PipelineSmoke -benchtime 1x ./rl/act/
func BenchmarkPipelineSmoke(b *testing.B) {
	for range b.N {
		cfg := SmokeConfig()
		cfg.Dir = b.TempDir()
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rep.Seconds, "s/run")
		b.ReportMetric(rep.InitSeconds, "s/init")
		b.ReportMetric(rep.CollectSeconds, "s/collect")
		b.Logf("%d pairs, %d critic examples (%+v), context %d", rep.Pairs, rep.Critic, rep.Collect, rep.Model.Context)
		for _, r := range rep.Rows {
			b.Logf("%-16s id success %.3f repeated %.2f | ood success %.3f repeated %.2f | offline %.3f | choice %.3f (malformed %.3f) | train %.1f s",
				r.Row, r.ID.Success, r.ID.RepeatedFailures, r.OOD.Success, r.OOD.RepeatedFailures, *r.Offline, *r.Choice, *r.ChoiceMalformed, r.TrainSeconds)
		}
		for _, row := range []string{RowACT, RowRL} {
			ms := rep.GRPO[row]
			b.Logf("%s: sampled success %.3f at update 0, %.3f at update %d", row, ms[0].Success, ms[len(ms)-1].Success, len(ms)-1)
		}
	}
}
