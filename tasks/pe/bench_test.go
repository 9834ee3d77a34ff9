package pe

import (
	"math/rand/v2"
	"testing"

	"arew/tasks"
)

// BenchmarkStrongEpisode times one strong-policy episode per setting (the
// cost of the baselines table and of strong demonstrations).
func BenchmarkStrongEpisode(b *testing.B) {
	for _, name := range []string{"pe-g-s2", "pe-g-s3", "pe-f-d6", "pe-f-d8"} {
		b.Run(name, func(b *testing.B) {
			cfg, err := DefaultConfig(name)
			if err != nil {
				b.Fatal(err)
			}
			task, err := New(name, cfg)
			if err != nil {
				b.Fatal(err)
			}
			pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ep, err := task.NewEpisode(tasks.Test, i)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tasks.Play(ep, pol, rand.New(rand.NewPCG(1, uint64(i))), task.TurnLimit()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
