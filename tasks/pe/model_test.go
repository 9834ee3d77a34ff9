package pe

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReply(t *testing.T) {
	inst := handInstance()
	w := inst.truth // (0.6, 0.3, 0.1)
	for _, tc := range []struct {
		name  string
		q     Query
		tol   float64
		want  Reply
		domin bool
	}{
		// d = (4, −4): P = 2.4, N = 1.2, band 0.3·3.6 = 1.08 < 1.2.
		{"m0 beats m1 on a0 a1", Query{[]int{0, 1}, 0, 1}, 0.3, Yes, false},
		{"the reversed pair", Query{[]int{0, 1}, 1, 0}, 0.3, No, false},
		// With a wider band the same pair is Equal: 1.2 ≤ 0.5·3.6.
		{"wide band", Query{[]int{0, 1}, 0, 1}, 0.5, Equal, false},
		// d = (−1, 2): P = N = 0.6 exactly.
		{"balanced advantages", Query{[]int{0, 1}, 5, 4}, 0, Equal, false},
		// d = (2, −2) on a1 a2: P = 0.6, N = 0.2, band 0.24 < 0.4.
		{"m1 beats m2 on a1 a2", Query{[]int{1, 2}, 1, 2}, 0.3, Yes, false},
		{"strictly dominated", Query{[]int{0, 1}, 2, 3}, 0.3, Yes, true},
		{"identical on the focus set", Query{[]int{0, 1}, 4, 2}, 0.3, Equal, true},
		// d = (2, 0): the released code's strict test calls this
		// informative; every w ≥ 0 answers Yes, so it is dominated here.
		{"weakly dominated", Query{[]int{0, 2}, 0, 4}, 0.3, Yes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, reply(w, tc.q, inst.table, tc.tol))
			assert.Equal(t, tc.domin, dominated(tc.q, inst.table))
		})
	}
}

// A dominated query's reply is the same for every w with positive weights:
// the premise of the spec's AS critique holds exactly under the relative
// Equal band.
func TestDominatedRepliesCarryNoInformation(t *testing.T) {
	task := newTask(t, tinyConfig())
	inst := handInstance()
	for i := 0; i < task.qs.size(); i++ {
		q := task.qs.query(i)
		if !dominated(q, inst.table) {
			continue
		}
		first := reply(task.parts.w[:3], q, inst.table, 0.3)
		for h := 1; h < task.parts.n; h++ {
			require.Equal(t, first, reply(task.parts.w[3*h:3*h+3], q, inst.table, 0.3), "query %v", q)
		}
	}
}

func TestQuerySpace(t *testing.T) {
	qs := newQuerySpace(4, 2, 5)
	require.Equal(t, 6*10, qs.size())
	for i := 0; i < qs.size(); i++ {
		q := qs.query(i)
		assert.Less(t, q.A, q.B)
		idx, flipped := qs.index(q)
		assert.Equal(t, i, idx)
		assert.False(t, flipped)
		q.A, q.B = q.B, q.A
		idx, flipped = qs.index(q)
		assert.Equal(t, i, idx, "a reversed pair is the same question")
		assert.True(t, flipped)
	}
	full := newQuerySpace(3, 3, 4)
	assert.Equal(t, [][]int{{0, 1, 2}}, full.focusSets)
	assert.Equal(t, 6, full.size())
}

func TestQuantize(t *testing.T) {
	m := []float64{0.6, 0.3, 0.1}
	// Roundings at top 1..4: (1 1 0), (2 1 0), (3 2 1), (4 2 1); the last is
	// the closest in cosine (0.9974).
	assert.Equal(t, [][]int{{1, 1, 0}, {2, 1, 0}, {3, 2, 1}, {4, 2, 1}}, roundings(m, 5))
	g := quantize(m, 5)
	assert.Equal(t, []int{4, 2, 1}, g)
	for _, r := range roundings(m, 5) {
		assert.GreaterOrEqual(t, cosine(toFloat(g), m), cosine(toFloat(r), m))
	}
	assert.Equal(t, []int{1, 1, 0}, quantize(m, 2))
	assert.Equal(t, []int{1, 1, 1}, quantize([]float64{0, 0, 0}, 5), "no direction: the flat guess")
	assert.Nil(t, roundings([]float64{0, 0}, 5))
}

func TestCosineAndDirection(t *testing.T) {
	assert.InDelta(t, 1, cosine([]float64{1, 2}, []float64{2, 4}), 1e-15)
	assert.InDelta(t, 0, cosine([]float64{1, 0}, []float64{0, 3}), 1e-15)
	assert.Equal(t, 0.0, cosine([]float64{0, 0}, []float64{1, 1}))
	assert.True(t, sameDirection([]int{1, 1, 0}, []int{2, 2, 0}))
	assert.False(t, sameDirection([]int{1, 1, 0}, []int{1, 2, 0}))
	u := unit([]float64{3, 4})
	assert.InDeltaSlice(t, []float64{0.6, 0.8}, u, 1e-15)
	assert.False(t, math.IsNaN(cosine(u, u)))
}

func TestPrimitive(t *testing.T) {
	assert.True(t, primitive([]int{2, 3, 0}))
	assert.True(t, primitive([]int{0, 1}))
	assert.False(t, primitive([]int{2, 4, 0}))
	assert.False(t, primitive([]int{0, 0}))
}
