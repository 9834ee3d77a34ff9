package model

import (
	"arew/engine"

	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"arew/optim"
)

// Benchmarks of a training step and of rollout decoding at the sizes the
// experiments use: task vocabulary 60, context 256. Compare runs as ratios
// of medians over interleaved -count runs (the machine is shared).
//
//	go test ./model -run '^$' -bench 'TrainStep|Rollout|Decode' -benchtime 3x -count 5

const benchVocab, benchContext = 60, 256

// TestPresetParamCounts logs each preset's parameter count for the bench
// vocabulary and context (policy: LM head; +value head: shared critic).
func TestPresetParamCounts(t *testing.T) {
	for _, name := range PresetNames() {
		c, err := NewConfig(name, benchVocab, benchContext)
		require.NoError(t, err)
		t.Logf("%-5s d_model %3d layers %d heads %d mlp %4d: %8d parameters (policy), %8d with a value head",
			name, c.DModel, c.Layers, c.Heads, c.MLP, c.NumParams(), c.WithValueHead().NumParams())
	}
}

// BenchmarkTrainStep is one update on a full (B,T) batch: forward,
// backward, gradient accumulation and AdamW, with the loss a masked mean of
// −logp (shape and cost of a PPO policy loss). tokens/s counts B·T;
// GFLOP/s counts stepFLOPs (the matmuls and attention products only), to
// be read against bench's BenchmarkPeakFMA at the same thread count.
func BenchmarkTrainStep(b *testing.B) {
	for _, tc := range []struct {
		preset string
		batch  int
		seqLen int
	}{
		{"small", 16, 128}, {"small", 32, 256}, {"base", 16, 128}, {"base", 32, 256},
	} {
		b.Run(fmt.Sprintf("%s/B=%d/T=%d", tc.preset, tc.batch, tc.seqLen), func(b *testing.B) {
			cfg, err := NewConfig(tc.preset, benchVocab, benchContext)
			require.NoError(b, err)
			m, err := New(cfg, 1)
			require.NoError(b, err)
			g, err := m.NewGraph(tc.batch, tc.seqLen)
			require.NoError(b, err)
			defer g.Close()
			rng := rand.New(rand.NewPCG(1, 1))
			n := tc.batch * tc.seqLen
			require.NoError(b, g.SetInputs(randomTokens(rng, n, cfg.Vocab), randomTokens(rng, n, cfg.Vocab)))
			mask := make([]float32, n)
			for i := range mask {
				mask[i] = 1
			}
			loss, err := testLoss{mask: mask}.build(g)
			require.NoError(b, err)
			require.NoError(b, g.Compile(loss))
			opt, err := optim.NewAdamW(m.Params.Params(), optim.AdamWConfig{Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1})
			require.NoError(b, err)
			step := func() {
				if err := g.Run(); err != nil {
					b.Fatal(err)
				}
				m.Params.ZeroGrad()
				if err := g.AccumulateGrads(); err != nil {
					b.Fatal(err)
				}
				if err := opt.Step(1e-4); err != nil {
					b.Fatal(err)
				}
			}
			step() // warm-up: op buffers are allocated on the first run
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				step()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(stepFLOPs(cfg, tc.batch, tc.seqLen)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// stepFLOPs is the arithmetic of one training step on (B, T), counting
// only the products (2 flops per multiply-add): the forward's matmuls,
// 2·B·T·(L·(C·3C + C·C + 2·C·M) + C·V), and its attention products,
// 2·2·B·L·C·T(T+1)/2 (scores and weighted sums over the causal triangle),
// then twice that again for the backward (a gradient for each operand of
// every product). LayerNorm, GELU, softmax, log-prob and AdamW are left
// out: they are O(B·T·C) or O(params), a few percent here.
func stepFLOPs(c Config, B, T int) float64 {
	n, C, L := float64(B*T), float64(c.DModel), float64(c.Layers)
	fwd := 2*n*(L*(C*3*C+C*C+2*C*float64(c.MLP))+C*float64(c.Vocab)) +
		2*2*float64(B)*L*C*float64(T)*float64(T+1)/2
	return 3 * fwd
}

// BenchmarkDecode is KV-cache decoding of seqs sequences in lockstep, as a
// rollout does: each step appends one sampled token to every sequence
// (one row each through every matmul together), attention over the
// sequence's cached positions, then a temperature-1 sample per row. Each
// sequence starts from a 16-token prompt and decodes to position 144, then
// all start over (prefills excluded from the timing). tokens/s counts
// sampled tokens.
//
//	go test ./model -run '^$' -bench 'Decode/' -benchtime 256x -count 5
func BenchmarkDecode(b *testing.B) {
	const prompt, end = 16, 144
	for _, preset := range []string{"small", "base"} {
		for _, seqs := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/seqs=%d", preset, seqs), func(b *testing.B) {
				cfg, err := NewConfig(preset, benchVocab, benchContext)
				require.NoError(b, err)
				m, err := New(cfg, 1)
				require.NoError(b, err)
				d, err := m.NewDecoder(seqs)
				require.NoError(b, err)
				decodeLoop(b, d, cfg, seqs, prompt, end)
			})
		}
	}
}

// decodeLoop times b.N lockstep decoding steps of d's seqs slots (see
// BenchmarkDecode).
func decodeLoop(b *testing.B, d *Decoder, cfg Config, seqs, prompt, end int) {
	rng := rand.New(rand.NewPCG(2, 2))
	slots := make([]int, seqs)
	prompts := make([][]int32, seqs)
	for i := range slots {
		slots[i], prompts[i] = i, randomTokens(rng, prompt, cfg.Vocab)
	}
	s := Sampler{Temperature: 1}
	next := make([]int32, seqs)
	var logits []float32
	restart := func() {
		d.ResetAll()
		var err error
		if logits, err = d.Append(slots, prompts); err != nil {
			b.Fatal(err)
		}
	}
	restart()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d.Pos(0) == end {
			b.StopTimer()
			restart()
			b.StartTimer()
		}
		for i := range slots {
			x, err := s.Sample(rng, logits[i*cfg.Vocab:(i+1)*cfg.Vocab])
			if err != nil {
				b.Fatal(err)
			}
			next[i] = x.Token
		}
		var err error
		if logits, err = d.Step(slots, next); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(seqs*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkRollout is one decoding step of 32 sequences with the KV cache:
// the forward of one new position each, then a temperature-1 sample from
// each row. Each sequence starts with a 16-token prompt and decodes to
// position 128, then starts over (prefills excluded from the timing), so
// the attention spans 16..127 cached positions. tokens/s counts sampled
// tokens.
func BenchmarkRollout(b *testing.B) {
	const seqs, prompt, end = 32, 16, 128
	for _, preset := range []string{"small", "base"} {
		b.Run(preset, func(b *testing.B) {
			cfg, err := NewConfig(preset, benchVocab, benchContext)
			require.NoError(b, err)
			m, err := New(cfg, 1)
			require.NoError(b, err)
			d, err := m.NewDecoder(seqs)
			require.NoError(b, err)
			decodeLoop(b, d, cfg, seqs, prompt, end)
		})
	}
}

// BenchmarkLinearBias compares the fused bias op with stock gorgonia's
// broadcast add (Reshape + Repeat + Add): y = x + b, forward and backward,
// at the size of a base MLP layer's output (N = 16·128 rows, D = 512). The
// matmul before it is left out: it costs the same either way.
func BenchmarkLinearBias(b *testing.B) {
	const n, in, out = 2048, 128, 512
	for _, fused := range []bool{true, false} {
		b.Run(map[bool]string{true: "fused", false: "stock"}[fused], func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			rnd := func(shape ...int) *tensor.Dense {
				d := make([]float32, tensor.Shape(shape).TotalSize())
				for i := range d {
					d[i] = float32(rng.NormFloat64())
				}
				return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
			}
			g := G.NewGraph()
			xw := G.NodeFromAny(g, rnd(n, out), G.WithName("x"))
			bias := G.NodeFromAny(g, rnd(out), G.WithName("b"))
			var y *G.Node
			if fused {
				y = G.Must(engine.AddBias(xw, bias))
			} else {
				y = G.Must(G.BroadcastAdd(xw, G.Must(G.Reshape(bias, tensor.Shape{1, out})), nil, []byte{0}))
			}
			wt := G.NodeFromAny(g, rnd(n, out), G.WithName("wt"))
			loss := G.Must(G.Sum(G.Must(G.HadamardProd(wt, y))))
			_, err := G.Grad(loss, xw, bias)
			require.NoError(b, err)
			vm := G.NewTapeMachine(g)
			defer vm.Close()
			run := func() {
				vm.Reset()
				if err := vm.RunAll(); err != nil {
					b.Fatal(err)
				}
			}
			run()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				run()
			}
		})
	}
}
