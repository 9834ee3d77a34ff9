package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// flodialRows are the loss's rows of a FloDial-like batch of B sequences
// of T = 179: four agent turns of 12 predictions per sequence, at
// positions 30, 67, 104 and 141 (48 of 179 rows, 27%, as FloDial's agent
// predictions are about 26% of its rows).
func flodialRows(B, T int) []int32 {
	var rows []int32
	for b := range B {
		for turn := range 4 {
			for j := range 12 {
				rows = append(rows, int32(b*T+30+37*turn+j))
			}
		}
	}
	return rows
}

// BenchmarkHeadRowsGraph is one forward + backward (Graph.Run) of the
// policy's training graph at FloDial's shape (small preset, vocabulary 60,
// B = 16, T = 179), the loss a weighted sum of log-probs at flodialRows:
// "plain" on every row, "head-rows" with the last block, final LayerNorm
// and LM head at the loss's rows only (capacity = their number). Compare
// the two as ratios of interleaved runs:
//
//	go test -c -o /tmp/m.test ./model
//	for r in 1 2 3 4 5; do for v in plain head-rows; do
//	  GOMAXPROCS=1 /tmp/m.test -test.run '^$' -test.bench "HeadRowsGraph/$v\$" -test.benchtime 20x
//	done; done
func BenchmarkHeadRowsGraph(b *testing.B) {
	const B, T = 16, 179
	for _, variant := range []string{"plain", "head-rows"} {
		b.Run(variant, func(b *testing.B) {
			cfg, err := NewConfig("small", benchVocab, benchContext)
			require.NoError(b, err)
			m, err := New(cfg, 1)
			require.NoError(b, err)
			rows := flodialRows(B, T)
			var g *Graph
			if variant == "plain" {
				g, err = m.NewGraph(B, T)
			} else {
				g, err = m.NewHeadRowsGraph(B, T, len(rows), false)
			}
			require.NoError(b, err)
			defer g.Close()
			rng := rand.New(rand.NewPCG(1, 1))
			n := B * T
			require.NoError(b, g.SetInputs(randomTokens(rng, n, cfg.Vocab), randomTokens(rng, n, cfg.Vocab)))
			if variant != "plain" {
				require.NoError(b, g.SetHeadRows(rows))
			}
			w := make([]float32, n)
			for _, i := range rows {
				w[i] = -1 / float32(len(rows))
			}
			wn := G.NodeFromAny(g.G, tensor.New(tensor.WithShape(n), tensor.WithBacking(w)), G.WithName("w"))
			require.NoError(b, g.Compile(G.Must(G.Sum(G.Must(G.HadamardProd(wn, g.Logp))))))
			require.NoError(b, g.Run()) // the first run allocates the ops' buffers
			b.ReportAllocs()
			for b.Loop() {
				if err := g.Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rows))/float64(n), "listed/rows")
		})
	}
}
