package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type attnFns struct {
	fwd func([]float32, AttentionShape, []float32, []float32) error
	bwd func([]float32, AttentionShape, []float32, []float32, []float32) error
}

var attnImpls = map[string]attnFns{
	"ref":  {AttentionForwardRef, AttentionBackwardRef},
	"fast": {AttentionForward, AttentionBackward},
}

// runAttention runs forward and backward; att starts filled with a sentinel
// so that tests can see what the kernels wrote.
func runAttention(t *testing.T, f attnFns, qkv []float32, sh AttentionShape, dout []float32) (out, att, dqkv []float32) {
	t.Helper()
	out, att, dqkv = make([]float32, sh.OutLen()), make([]float32, sh.AttLen()), make([]float32, sh.QKVLen())
	for i := range att {
		att[i] = -7
	}
	require.NoError(t, f.fwd(qkv, sh, out, att))
	require.NoError(t, f.bwd(qkv, sh, att, dout, dqkv))
	return out, att, dqkv
}

// One sequence, T = 2, one head of size 2 (C = 2), rows [q | k | v]:
//
//	t=0: q0 = (1,0)  k0 = (1,1)  v0 = (1,2)
//	t=1: q1 = (0,2)  k1 = (2,0)  v1 = (3,−1)
//
// t=0 sees only s=0: att = 1, out0 = v0 = (1,2).
// t=1: a10 = q1·k0/√2 = 2/√2 = √2, a11 = q1·k1/√2 = 0, so
// p := att[1,0] = e^√2/(e^√2 + 1) = σ(√2) = 0.8044296825069569, att[1,1] = 1−p,
// out1 = p·v0 + (1−p)·v1 = (3 − 2p, −1 + 3p) = (1.3911406349860862, 1.4132890475208706).
//
// Backward with dout0 = (0,0), dout1 = (1,0): dP[1,0] = dout1·v0 = 1,
// dP[1,1] = dout1·v1 = 3, Σ P·dP = 3 − 2p, so dA[1,0] = p(1 − (3 − 2p)) =
// −2p(1−p) and dA[1,1] = (1−p)(3 − (3 − 2p)) = 2p(1−p). With g := 2p(1−p)/√2
// = 0.22248770991097153:
//
//	dq1 = (dA10·k0 + dA11·k1)/√2 = g·(k1 − k0) = (g, −g)
//	dk0 = dA10·q1/√2 = (0, −2g),  dk1 = (0, 2g)
//	dv0 = p·dout1 = (p, 0),       dv1 = (1−p, 0)
//	dq0 = 0 (a one-element softmax has zero gradient)
func TestAttentionHandComputed(t *testing.T) {
	sh := AttentionShape{Batch: 1, SeqLen: 2, Channels: 2, Heads: 1}
	qkv := []float32{
		1, 0, 1, 1, 1, 2,
		0, 2, 2, 0, 3, -1,
	}
	dout := []float32{0, 0, 1, 0}
	const p, g = 0.8044296825069569, 0.22248770991097153
	wantOut := []float32{1, 2, 1.3911406349860862, 1.4132890475208706}
	wantAtt := []float32{1, -7, p, 1 - p} // -7: the sentinel above the diagonal is untouched
	wantD := []float32{
		0, 0, 0, -2 * g, p, 0,
		g, -g, 0, 2 * g, 1 - p, 0,
	}
	for name, f := range attnImpls {
		out, att, dqkv := runAttention(t, f, qkv, sh, dout)
		assertClose32(t, wantOut, out, 1e-6, 1e-6, name+" out")
		assertClose32(t, wantAtt, att, 1e-7, 1e-6, name+" att")
		assertClose32(t, wantD, dqkv, 1e-6, 1e-6, name+" dqkv")
	}
}

func TestAttentionFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		name string
		sh   AttentionShape
	}{
		{"empty batch", AttentionShape{0, 3, 4, 2}},
		{"T=1", AttentionShape{2, 1, 4, 1}},
		{"head size 2", AttentionShape{2, 5, 6, 3}},
		{"head size 5", AttentionShape{2, 9, 20, 4}},
		{"head size 6", AttentionShape{3, 7, 12, 2}},
		{"model-like, parallel", AttentionShape{4, 33, 64, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qkv := opsRandn(rng, tc.sh.QKVLen(), 0, 1)
			dout := opsRandn(rng, tc.sh.OutLen(), 0, 1)
			outR, attR, dR := runAttention(t, attnImpls["ref"], qkv, tc.sh, dout)
			for _, avx2 := range productPaths() {
				var outF, attF, dF []float32
				withProducts(avx2, func() { outF, attF, dF = runAttention(t, attnImpls["fast"], qkv, tc.sh, dout) })
				assertClose32(t, outR, outF, 1e-5, 1e-5, fmt.Sprintf("avx2=%v out", avx2))
				assertClose32(t, attR, attF, 1e-6, 1e-5, fmt.Sprintf("avx2=%v att", avx2)) // sentinels must match too
				assertClose32(t, dR, dF, 1e-5, 1e-4, fmt.Sprintf("avx2=%v dqkv", avx2))
			}
		})
	}
}

// Changing everything at position t (its q, k and v) of one sequence leaves
// the outputs at positions < t, and all other sequences, bitwise unchanged,
// while the outputs at ≥ t change. In the backward, dout at position t
// reaches dqkv only at positions ≤ t.
func TestAttentionIsCausal(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	sh := AttentionShape{Batch: 2, SeqLen: 8, Channels: 12, Heads: 3}
	C3, T := 3*sh.Channels, sh.SeqLen
	for name, f := range attnImpls {
		qkv := opsRandn(rng, sh.QKVLen(), 0, 1)
		dout := opsRandn(rng, sh.OutLen(), 0, 1)
		out, _, dqkv := runAttention(t, f, qkv, sh, dout)
		const b, tc = 1, 5
		changed := append([]float32(nil), qkv...)
		for i := range C3 {
			changed[(b*T+tc)*C3+i] += 3
		}
		out2, _, _ := runAttention(t, f, changed, sh, dout)
		C := sh.Channels
		for bb := range sh.Batch {
			for pos := range T {
				row, row2 := out[(bb*T+pos)*C:][:C], out2[(bb*T+pos)*C:][:C]
				if bb == b && pos >= tc {
					assert.NotEqual(t, row, row2, "%s: b=%d t=%d should change", name, bb, pos)
				} else {
					assert.Equal(t, row, row2, "%s: b=%d t=%d must not change", name, bb, pos)
				}
			}
		}
		dout2 := append([]float32(nil), dout...)
		for i := range C {
			dout2[(b*T+tc)*C+i] += 1
		}
		_, _, dqkv2 := runAttention(t, f, qkv, sh, dout2)
		for pos := tc + 1; pos < T; pos++ {
			assert.Equal(t, dqkv[(b*T+pos)*C3:][:C3], dqkv2[(b*T+pos)*C3:][:C3], "%s: dqkv at t=%d", name, pos)
		}
	}
}

// Scores of ±1e4 (far beyond exp's range) must give a clean one-hot
// softmax, not NaN: the row max is subtracted first.
func TestAttentionLargeScores(t *testing.T) {
	sh := AttentionShape{Batch: 1, SeqLen: 3, Channels: 1, Heads: 1}
	// head size 1, scale 1: a[t,s] = q_t·k_s. q = 100 everywhere, k = (100, −100, 101).
	qkv := []float32{100, 100, 1, 100, -100, 2, 100, 101, 3}
	dout := []float32{1, 1, 1}
	for name, f := range attnImpls {
		out, att, dqkv := runAttention(t, f, qkv, sh, dout)
		// t=1: scores (1e4, −1e4) → att (1, 0); t=2: (1e4, −1e4, 1.01e4) → (e^−100, 0, 1).
		assert.Equal(t, []float32{1, 1, 0}, []float32{att[0], att[3], att[4]}, name)
		assert.InDelta(t, 1, float64(att[8]), 1e-7, name)
		assert.InDelta(t, 0, float64(att[6]), 1e-40, name)
		assert.InDeltaSlice(t, []float32{1, 1, 3}, out, 1e-5, name)
		for i, d := range dqkv {
			assert.False(t, math.IsNaN(float64(d)) || math.IsInf(float64(d), 0), "%s dqkv[%d] = %v", name, i, d)
		}
	}
}

// A NaN in k at position s of sequence b, head h makes out NaN exactly at
// rows t ≥ s of that sequence and head.
func TestAttentionNaNPropagatesOnlyCausally(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	sh := AttentionShape{Batch: 2, SeqLen: 6, Channels: 8, Heads: 2}
	T, C, hd := sh.SeqLen, sh.Channels, sh.HeadSize()
	const b, s, h = 1, 2, 1
	for name, f := range attnImpls {
		qkv := opsRandn(rng, sh.QKVLen(), 0, 1)
		qkv[(b*T+s)*3*C+C+h*hd+1] = float32(math.NaN())
		out := make([]float32, sh.OutLen())
		require.NoError(t, f.fwd(qkv, sh, out, make([]float32, sh.AttLen())))
		for bb := range sh.Batch {
			for pos := range T {
				for hh := range sh.Heads {
					for i := range hd {
						v := float64(out[(bb*T+pos)*C+hh*hd+i])
						want := bb == b && hh == h && pos >= s
						assert.Equal(t, want, math.IsNaN(v), "%s b=%d t=%d h=%d", name, bb, pos, hh)
					}
				}
			}
		}
	}
}

func TestAttentionDeterministicAcrossGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	sh := AttentionShape{Batch: 4, SeqLen: 40, Channels: 32, Heads: 4}
	qkv, dout := opsRandn(rng, sh.QKVLen(), 0, 1), opsRandn(rng, sh.OutLen(), 0, 1)
	prev := runtime.GOMAXPROCS(1)
	o1, a1, d1 := runAttention(t, attnImpls["fast"], qkv, sh, dout)
	runtime.GOMAXPROCS(4)
	o4, a4, d4 := runAttention(t, attnImpls["fast"], qkv, sh, dout)
	runtime.GOMAXPROCS(prev)
	assert.Equal(t, o1, o4)
	assert.Equal(t, a1, a4)
	assert.Equal(t, d1, d4)
}

func TestAttentionRejectsBadInput(t *testing.T) {
	good := AttentionShape{Batch: 1, SeqLen: 2, Channels: 4, Heads: 2}
	buf := func(n int) []float32 { return make([]float32, n) }
	for name, f := range attnImpls {
		bad := good
		bad.Heads = 3
		assert.ErrorContains(t, f.fwd(buf(24), bad, buf(8), buf(12)), "divide", name)
		bad = good
		bad.SeqLen = 0
		assert.ErrorContains(t, f.fwd(buf(24), bad, buf(8), buf(12)), "bad shape", name)
		assert.ErrorContains(t, f.fwd(buf(23), good, buf(8), buf(8)), "too short", name)
		assert.ErrorContains(t, f.bwd(buf(24), good, buf(8), buf(8), buf(23)), "dqkv", name)
		assert.NoError(t, f.bwd(buf(24), good, buf(8), buf(8), buf(24)), name)
	}
}

// A NaN or Inf in q, k, v or dout reaches the backward's gradients exactly
// where it reaches the reference's (the fast path's full-square products
// would spread it through the zeros above the diagonal, so such a pair
// takes the reference loops); other pairs are unaffected.
func TestAttentionBackwardNonFiniteMatchesRef(t *testing.T) {
	sh := AttentionShape{Batch: 2, SeqLen: 9, Channels: 8, Heads: 2}
	T, C, hd := sh.SeqLen, sh.Channels, sh.HeadSize()
	for name, poison := range map[string]func(qkv, dout []float32){
		"nan in k":    func(qkv, _ []float32) { qkv[(1*T+4)*3*C+C+1*hd] = float32(math.NaN()) },
		"inf in v":    func(qkv, _ []float32) { qkv[(0*T+6)*3*C+2*C+0*hd+2] = float32(math.Inf(1)) },
		"nan in q":    func(qkv, _ []float32) { qkv[(1*T+2)*3*C+1*hd+3] = float32(math.NaN()) },
		"nan in dout": func(_, dout []float32) { dout[(0*T+3)*C+1*hd] = float32(math.NaN()) },
	} {
		rng := rand.New(rand.NewPCG(41, 42))
		qkv, dout := opsRandn(rng, sh.QKVLen(), 0, 1), opsRandn(rng, sh.OutLen(), 0, 1)
		poison(qkv, dout)
		_, _, want := runAttention(t, attnImpls["ref"], qkv, sh, dout)
		_, _, got := runAttention(t, attnImpls["fast"], qkv, sh, dout)
		for i := range want {
			w, g := float64(want[i]), float64(got[i])
			require.Equal(t, math.IsNaN(w), math.IsNaN(g), "%s: dqkv[%d] ref %v fast %v", name, i, w, g)
			if !math.IsNaN(w) && !math.IsInf(w, 0) {
				assert.InDelta(t, w, g, 1e-4*(1+math.Abs(w)), "%s: dqkv[%d]", name, i)
			}
		}
	}
}
