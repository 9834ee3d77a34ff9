package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fast vs reference tolerance, stated in TokenLogProb's doc.
const (
	tolAbs = 1e-5
	tolRel = 1e-5
)

// agree reports whether a fast output matches the reference: both NaN, the
// same infinity, or within tolAbs + tolRel·|ref|.
func agree(fast, ref float32) bool {
	f, r := float64(fast), float64(ref)
	switch {
	case math.IsNaN(r) || math.IsNaN(f):
		return math.IsNaN(r) && math.IsNaN(f)
	case math.IsInf(r, 0) || math.IsInf(f, 0):
		return f == r
	}
	return math.Abs(f-r) <= tolAbs+tolRel*math.Abs(r)
}

// assertAgree checks every element and reports the first few mismatches.
func assertAgree(t *testing.T, what string, fast, ref []float32) {
	t.Helper()
	require.Equal(t, len(ref), len(fast))
	bad := 0
	for i := range ref {
		if !agree(fast[i], ref[i]) {
			if bad < 5 {
				t.Errorf("%s[%d]: fast %g, ref %g (diff %g)", what, i, fast[i], ref[i], fast[i]-ref[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements disagree", what, bad, len(ref))
	}
}

// logProbCase holds one problem and both paths' outputs.
type logProbCase struct {
	n, v           int
	logits         []float32
	targets        []int32
	gLogp, gEnt    []float32
	dzInit         []float32 // what dlogits holds before an accumulating backward
	logp, lse, ent [2][]float32
	dz             [2][]float32
}

func randomCase(r *rand.Rand, n, v int, scale float64) *logProbCase {
	c := &logProbCase{n: n, v: v, logits: make([]float32, n*v), targets: make([]int32, n),
		gLogp: make([]float32, n), gEnt: make([]float32, n), dzInit: make([]float32, n*v)}
	for i := range c.logits {
		c.logits[i] = float32(r.NormFloat64() * scale)
		c.dzInit[i] = float32(r.NormFloat64())
	}
	for i := range c.targets {
		c.targets[i] = int32(r.IntN(v))
		c.gLogp[i] = float32(r.NormFloat64())
		c.gEnt[i] = float32(r.NormFloat64())
	}
	return c
}

// run computes forward and backward with the reference (k = 0) and the
// fast path (k = 1), with or without entropy, overwriting or accumulating.
func (c *logProbCase) run(t *testing.T, withEnt, accumulate bool) {
	t.Helper()
	fwd := [2]func([]float32, int, int, []int32, []float32, []float32, []float32) error{TokenLogProbRef, TokenLogProb}
	bwd := [2]func([]float32, int, int, []int32, []float32, []float32, []float32, []float32, []float32, bool) error{TokenLogProbBackwardRef, TokenLogProbBackward}
	for k := range 2 {
		c.logp[k], c.lse[k] = make([]float32, c.n), make([]float32, c.n)
		c.ent[k] = nil
		gEnt := []float32(nil)
		if withEnt {
			c.ent[k], gEnt = make([]float32, c.n), c.gEnt
		}
		require.NoError(t, fwd[k](c.logits, c.n, c.v, c.targets, c.logp[k], c.lse[k], c.ent[k]))
		c.dz[k] = make([]float32, c.n*c.v)
		if accumulate {
			copy(c.dz[k], c.dzInit)
		}
		// Both backward passes start from the reference's lse and ent, so
		// the comparison isolates the backward.
		require.NoError(t, bwd[k](c.logits, c.n, c.v, c.targets, c.lse[0], c.ent[0], c.gLogp, gEnt, c.dz[k], accumulate))
	}
}

func (c *logProbCase) assertAgree(t *testing.T) {
	t.Helper()
	assertAgree(t, "logp", c.logp[1], c.logp[0])
	assertAgree(t, "lse", c.lse[1], c.lse[0])
	if c.ent[0] != nil {
		assertAgree(t, "ent", c.ent[1], c.ent[0])
	}
	assertAgree(t, "dlogits", c.dz[1], c.dz[0])
}

func TestTokenLogProbMatchesRef(t *testing.T) {
	// v covers lengths below, at and above the 8-wide vector, the 16-float
	// unroll, the 256-logit block and rowBatch rows (n = 70).
	shapes := [][2]int{{0, 5}, {1, 1}, {3, 1}, {5, 7}, {5, 8}, {5, 9}, {4, 15}, {4, 16}, {4, 17},
		{3, 33}, {70, 127}, {3, 128}, {3, 255}, {3, 256}, {3, 257}, {2, 1000}, {300, 120}, {2, 4100}}
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, sh := range shapes {
			for _, scale := range []float64{1, 30, 1e4} {
				for _, mode := range []struct{ ent, acc bool }{{false, false}, {true, false}, {true, true}} {
					name := fmt.Sprintf("%dx%d/scale=%g/ent=%v/acc=%v", sh[0], sh[1], scale, mode.ent, mode.acc)
					t.Run(name, func(t *testing.T) {
						c := randomCase(r, sh[0], sh[1], scale)
						before := refRowsTaken.Load()
						c.run(t, mode.ent, mode.acc)
						c.assertAgree(t)
						assert.Equal(t, before, refRowsTaken.Load(), "ordinary rows went to the reference")
					})
				}
			}
		}
	})
}

// TestTokenLogProbRescale puts each row's max in a later 256-block than its
// start (ramps up, so every block rescales the running sums), in the tail,
// or first (ramps down), including rows whose later blocks are far above
// the earlier ones.
func TestTokenLogProbRescale(t *testing.T) {
	const n, v = 6, 1000
	forEachImpl(t, func(t *testing.T) {
		c := randomCase(rand.New(rand.NewPCG(5, 6)), n, v, 1)
		for j := range v {
			f := float32(j)
			c.logits[0*v+j] = f / 100     // slow ramp up
			c.logits[1*v+j] = -f / 100    // ramp down
			c.logits[2*v+j] = f * 10      // steep: early blocks underflow
			c.logits[3*v+j] = 0.5         // constant row
			c.logits[4*v+j] = -1e4 + f*20 // from −1e4 up to ≈ +1e4
		}
		c.logits[5*v+v-1] = 50 // max in the tail
		before := refRowsTaken.Load()
		c.run(t, true, false)
		assert.Equal(t, before, refRowsTaken.Load(), "ordinary rows went to the reference")
		c.assertAgree(t)
		assert.InDelta(t, 0.5+math.Log(v), float64(c.lse[1][3]), 1e-5, "constant row: lse = 0.5 + log v")
		assert.InDelta(t, math.Log(v), float64(c.ent[1][3]), 1e-5, "constant row: H = log v")
	})
}

// TestTokenLogProbEdgeRows checks the documented non-finite rows on both
// paths, with the odd value in the 8-wide body, the unrolled pairs and the
// masked tail.
func TestTokenLogProbEdgeRows(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	type want struct{ logp, lse, ent float32 } // NaN: want NaN; 1: finite
	rows := []struct {
		name string
		set  func(row []float32) // row starts as small random logits
		y    int                 // the target; −1 for the last logit
		want want
	}{
		{"NaN", func(r []float32) { r[len(r)-1] = nan }, 0, want{nan, nan, nan}},
		{"NaN first", func(r []float32) { r[0] = nan }, 1, want{nan, nan, nan}},
		{"NaN and +Inf", func(r []float32) { r[0], r[len(r)-1] = inf, nan }, 1, want{nan, nan, nan}},
		{"+Inf", func(r []float32) { r[len(r)/2] = inf }, 0, want{nan, inf, nan}},
		{"+Inf target", func(r []float32) { r[0] = inf }, 0, want{nan, inf, nan}},
		{"all -Inf", func(r []float32) {
			for j := range r {
				r[j] = -inf
			}
		}, 0, want{nan, -inf, nan}},
		{"-Inf target", func(r []float32) { r[0] = -inf }, 0, want{-inf, 1, 1}},
		{"-Inf entries", func(r []float32) { r[len(r)/2], r[len(r)-1] = -inf, -inf }, 0, want{1, 1, 1}},
		{"one finite", func(r []float32) {
			for j := range r {
				r[j] = -inf
			}
			r[len(r)-1] = 3
		}, -1, want{1, 1, 1}},
		{"±MaxFloat32", func(r []float32) { r[0], r[len(r)-1] = math.MaxFloat32, -math.MaxFloat32 }, 0, want{1, 1, 1}},
		{"±1e4", func(r []float32) { r[0], r[len(r)-1] = 1e4, -1e4 }, 1, want{1, 1, 1}},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, v := range rowSizesForEdges {
			for _, rc := range rows {
				c := randomCase(rand.New(rand.NewPCG(7, uint64(v))), 3, v, 1)
				row := c.logits[v : 2*v] // the middle row; its neighbours stay ordinary
				if v == 1 && (rc.name == "-Inf target" || rc.name == "-Inf entries") {
					continue // the row would be all −Inf
				}
				rc.set(row)
				y := rc.y % v
				if rc.y < 0 {
					y = v - 1
				}
				c.targets[1] = int32(y)
				t.Run(fmt.Sprintf("%s/v=%d", rc.name, v), func(t *testing.T) {
					for _, acc := range []bool{false, true} {
						c.run(t, true, acc)
						c.assertAgree(t)
						for k, got := range []want{{c.logp[1][1], c.lse[1][1], c.ent[1][1]}, {c.logp[0][1], c.lse[0][1], c.ent[0][1]}} {
							assertEdge(t, k, "logp", got.logp, rc.want.logp)
							assertEdge(t, k, "lse", got.lse, rc.want.lse)
							assertEdge(t, k, "ent", got.ent, rc.want.ent)
						}
						for _, k := range []int{0, 2} { // neighbours unaffected
							assert.False(t, math.IsNaN(float64(c.lse[1][k])), "row %d", k)
						}
						if math.IsNaN(float64(rc.want.ent)) {
							for j, d := range c.dz[1][v : 2*v] {
								assert.True(t, math.IsNaN(float64(d)), "dz[1,%d] = %g, want NaN", j, d)
							}
						}
					}
				})
			}
		}
	})
}

var rowSizesForEdges = []int{1, 7, 9, 33, 300}

func assertEdge(t *testing.T, k int, what string, got, want float32) {
	t.Helper()
	path := [2]string{"ref", "fast"}[k]
	switch {
	case math.IsNaN(float64(want)):
		assert.True(t, math.IsNaN(float64(got)), "%s %s = %g, want NaN", path, what, got)
	case want == 1:
		assert.False(t, math.IsNaN(float64(got)) || math.IsInf(float64(got), 1), "%s %s = %g, want finite", path, what, got)
	default:
		assert.Equal(t, want, got, "%s %s", path, what)
	}
}

// TestTokenLogProbErrors: bad arguments are errors, and nothing is written.
func TestTokenLogProbErrors(t *testing.T) {
	const n, v = 3, 5
	logits := make([]float32, n*v)
	good := []int32{0, 4, 2}
	cases := []struct {
		name    string
		n, v    int
		targets []int32
		short   bool // outputs one element too short
	}{
		{"target -1", n, v, []int32{0, -1, 2}, false},
		{"target v", n, v, []int32{0, 1, v}, false},
		{"target huge", n, v, []int32{1 << 30, 1, 2}, false},
		{"v = 0", n, 0, good, false},
		{"n < 0", -1, v, good, false},
		{"short outputs", n, v, good, true},
		{"short targets", n, v, good[:2], false},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cases {
			m := n
			if c.short {
				m = n - 1
			}
			fill := func(k int) []float32 {
				s := make([]float32, k)
				for i := range s {
					s[i] = 7
				}
				return s
			}
			logp, lse, ent, dz := fill(m), fill(m), fill(m), fill(m*v)
			g := fill(n)
			err := TokenLogProb(logits, c.n, c.v, c.targets, logp, lse, ent)
			assert.Error(t, err, c.name)
			errB := TokenLogProbBackward(logits, c.n, c.v, c.targets, fill(n), fill(n), g, g, dz, false)
			if !c.short { // short forward outputs say nothing about the backward
				assert.Error(t, errB, c.name)
			}
			for _, s := range [][]float32{logp, lse, ent, dz} {
				for _, x := range s {
					require.Equal(t, float32(7), x, "%s: an output was written", c.name)
				}
			}
		}
		var lp, l []float32
		assert.NoError(t, TokenLogProb(nil, 0, v, nil, lp, l, nil), "n = 0 is valid")
		assert.NoError(t, TokenLogProbBackward(nil, 0, v, nil, nil, nil, nil, nil, nil, true), "n = 0 is valid")
	})
}

// TestTokenLogProbDeterministic: the result does not depend on how many
// goroutines share the rows.
func TestTokenLogProbDeterministic(t *testing.T) {
	c := randomCase(rand.New(rand.NewPCG(9, 10)), 257, 700, 3)
	run := func(procs int) ([]float32, []float32, []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		logp, lse, ent, dz := make([]float32, c.n), make([]float32, c.n), make([]float32, c.n), make([]float32, c.n*c.v)
		require.NoError(t, TokenLogProb(c.logits, c.n, c.v, c.targets, logp, lse, ent))
		require.NoError(t, TokenLogProbBackward(c.logits, c.n, c.v, c.targets, lse, ent, c.gLogp, c.gEnt, dz, false))
		return logp, ent, dz
	}
	forEachImpl(t, func(t *testing.T) {
		lp1, h1, dz1 := run(1)
		for _, procs := range []int{2, 3, 8} {
			lp, h, dz := run(procs)
			assert.Equal(t, lp1, lp, "logp, GOMAXPROCS=%d", procs)
			assert.Equal(t, h1, h, "ent, GOMAXPROCS=%d", procs)
			assert.Equal(t, dz1, dz, "dlogits, GOMAXPROCS=%d", procs)
		}
	})
}

// TestTokenLogProbGradCheck compares the fast backward with central
// differences of the loss L = Σ_i g_i·logp_i + h_i·H_i through the
// reference forward (float64 inside, float32 out, so ε = 1e-2 and a 1e-3
// tolerance: the truncation error is O(ε²), the rounding noise 1e-7/ε).
func TestTokenLogProbGradCheck(t *testing.T) {
	const n, v, eps = 3, 11, 1e-2
	c := randomCase(rand.New(rand.NewPCG(11, 12)), n, v, 2)
	loss := func(z []float32) float64 {
		logp, lse, ent := make([]float32, n), make([]float32, n), make([]float32, n)
		require.NoError(t, TokenLogProbRef(z, n, v, c.targets, logp, lse, ent))
		s := 0.0
		for i := range n {
			s += float64(c.gLogp[i])*float64(logp[i]) + float64(c.gEnt[i])*float64(ent[i])
		}
		return s
	}
	forEachImpl(t, func(t *testing.T) {
		logp, lse, ent, dz := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n*v)
		require.NoError(t, TokenLogProb(c.logits, n, v, c.targets, logp, lse, ent))
		require.NoError(t, TokenLogProbBackward(c.logits, n, v, c.targets, lse, ent, c.gLogp, c.gEnt, dz, false))
		z := append([]float32(nil), c.logits...)
		for k := range z {
			z[k] = c.logits[k] + eps
			up := loss(z)
			z[k] = c.logits[k] - eps
			down := loss(z)
			z[k] = c.logits[k]
			num := (up - down) / (2 * eps)
			assert.InDelta(t, num, float64(dz[k]), 1e-3*(1+math.Abs(num)), "dz[%d]", k)
		}
	})
}

// aligned32 returns a zeroed slice of n floats starting on a 32-byte
// boundary, plus off floats (off = 1 gives a misaligned slice).
func aligned32(n, off int) []float32 {
	buf := make([]float32, n+16)
	k := 0
	for uintptr(unsafe.Pointer(&buf[k]))%32 != 0 {
		k++
	}
	return buf[k+off : k+off+n]
}

// TestTokenLogProbBackwardNonTemporal runs the non-temporal-store backward
// (normally only for dlogits ≥ 64 MiB) on small problems against the
// reference, and checks when it is chosen.
func TestTokenLogProbBackwardNonTemporal(t *testing.T) {
	saved := ntMinBytes
	defer func() { ntMinBytes = saved }()
	ntMinBytes = 0
	assert.Equal(t, dzNonTemporal, backwardMode(4, 16, aligned32(64, 0), false, false))
	assert.Equal(t, dzNonTemporal|dzEntropy, backwardMode(4, 16, aligned32(64, 0), true, false))
	assert.Zero(t, backwardMode(4, 16, aligned32(64, 1), false, false), "misaligned")
	assert.Zero(t, backwardMode(4, 12, aligned32(48, 0), false, false), "v % 8 ≠ 0")
	assert.Equal(t, dzAccumulate, backwardMode(4, 16, aligned32(64, 0), false, true), "accumulating")
	ntMinBytes = saved
	assert.Zero(t, backwardMode(4, 16, aligned32(64, 0), false, false), "small")
	ntMinBytes = 0

	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, v := range []int{8, 16, 24, 256, 1000} {
			for _, withEnt := range []bool{false, true} {
				c := randomCase(r, 70, v, 2)
				c.run(t, withEnt, false) // the reference, and dz[1] to compare with
				gEnt := []float32(nil)
				if withEnt {
					gEnt = c.gEnt
				}
				dz := aligned32(c.n*v, 0)
				require.NoError(t, TokenLogProbBackward(c.logits, c.n, v, c.targets, c.lse[0], c.ent[0], c.gLogp, gEnt, dz, false))
				assertAgree(t, fmt.Sprintf("dlogits v=%d ent=%v", v, withEnt), dz, c.dz[0])
			}
		}
	})
}
