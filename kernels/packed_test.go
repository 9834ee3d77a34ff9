package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomBatch builds nb multi-turn trajectories of up to maxLen tokens: runs
// of observation tokens (prompt, replies) alternate with runs of agent tokens,
// lengths random and sometimes 0, so the batch has empty trajectories,
// trajectories of only observation tokens, and agent runs at either end. Each
// agent run is one step, sometimes two (a query then a belief), sometimes
// stretched over the neighbouring observation tokens, sometimes empty, with a
// random critique.
func randomBatch(r *rand.Rand, nb, maxLen int) (Packed, Steps) {
	offsets := []int32{0}
	var mask []uint8
	st := Steps{Offsets: []int32{0}}
	addStep := func(start, end int) {
		st.Start = append(st.Start, int32(start))
		st.End = append(st.End, int32(end))
		st.Critique = append(st.Critique, int8(r.IntN(3)-1))
	}
	for range nb {
		lo := len(mask)
		n := r.IntN(maxLen + 1)
		agent := r.IntN(2) == 0
		prevEnd := lo
		for len(mask)-lo < n {
			run := min(r.IntN(12), n-(len(mask)-lo))
			start := len(mask)
			for range run {
				if agent {
					mask = append(mask, 1)
				} else {
					mask = append(mask, 0)
				}
			}
			if agent {
				// Sometimes reach back over observation tokens already laid down.
				s0 := max(prevEnd, start-r.IntN(3)*r.IntN(2))
				if run >= 2 && r.IntN(3) == 0 {
					mid := start + run/2
					addStep(s0, mid)
					addStep(mid, start+run)
				} else {
					addStep(s0, start+run)
				}
				prevEnd = start + run
			}
			agent = !agent
		}
		offsets = append(offsets, int32(len(mask)))
		st.Offsets = append(st.Offsets, int32(len(st.Critique)))
	}
	return Packed{Offsets: offsets, Mask: mask}, st
}

// regularBatch is the benchmark layout: nb trajectories of length L each, a
// 32-token prompt, then turns of 16 agent tokens (one step, random critique)
// and 16 observation tokens.
func regularBatch(r *rand.Rand, nb, L int) (Packed, Steps) {
	offsets := make([]int32, 0, nb+1)
	mask := make([]uint8, 0, nb*L)
	st := Steps{Offsets: []int32{0}}
	offsets = append(offsets, 0)
	for range nb {
		lo := len(mask)
		for t := range L {
			if t >= 32 && (t-32)%32 < 16 {
				mask = append(mask, 1)
			} else {
				mask = append(mask, 0)
			}
			if t >= 32 && (t-32)%32 == 0 {
				st.Start = append(st.Start, int32(lo+t))
				st.End = append(st.End, int32(lo+min(t+16, L)))
				st.Critique = append(st.Critique, int8(r.IntN(3)-1))
			}
		}
		offsets = append(offsets, int32(len(mask)))
		st.Offsets = append(st.Offsets, int32(len(st.Critique)))
	}
	return Packed{Offsets: offsets, Mask: mask}, st
}

func randomFloats(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// filled returns n copies of v: a sentinel to show a buffer was not touched.
func filled(n int, v float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestRandomBatchesAreValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		p, st := randomBatch(r, r.IntN(20), 60)
		require.NoError(t, p.Validate())
		require.NoError(t, st.Validate(p))
	}
	p, st := regularBatch(r, 8, 256)
	require.NoError(t, p.Validate())
	require.NoError(t, st.Validate(p))
	assert.Equal(t, 8*7, st.NumSteps())
}

func TestPackedValidate(t *testing.T) {
	cases := []struct {
		name    string
		offsets []int32
		mask    []uint8
		errPart string
	}{
		{"B=0", []int32{0}, nil, ""},
		{"empty trajectories", []int32{0, 0, 2, 2}, []uint8{1, 0}, ""},
		{"no offsets", nil, nil, "offsets is empty"},
		{"first offset not 0", []int32{1, 2}, []uint8{1, 1}, "offsets[0] = 1"},
		{"decreasing", []int32{0, 3, 2, 4}, []uint8{1, 1, 1, 1}, "trajectory 1 has a negative length"},
		{"last offset short", []int32{0, 2}, []uint8{1, 1, 1}, "offsets[B] = 2 but the mask has 3"},
		{"last offset long", []int32{0, 4}, []uint8{1, 1, 1}, "offsets[B] = 4"},
		{"mask value 2", []int32{0, 3}, []uint8{1, 2, 0}, "mask[1] = 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPacked(c.offsets, c.mask)
			if c.errPart == "" {
				require.NoError(t, err)
				assert.Equal(t, len(c.offsets)-1, p.NumTrajectories())
				assert.Equal(t, len(c.mask), p.NumTokens())
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.errPart)
		})
	}
}

func TestBroadcast(t *testing.T) {
	// Three trajectories: [agent, obs, agent], [] and [obs, agent].
	p := Packed{Offsets: []int32{0, 3, 3, 5}, Mask: []uint8{1, 0, 1, 0, 1}}
	out := filled(5, 9)
	require.NoError(t, BroadcastRef(p, []float32{2, 7, -1}, out))
	assert.Equal(t, []float32{2, 0, 2, 0, -1}, out)
	assert.Error(t, BroadcastRef(p, []float32{2, 7}, out), "perTraj must have B entries")
	assert.Error(t, BroadcastRef(p, []float32{2, 7, 1}, out[:4]), "out must have T entries")
}
