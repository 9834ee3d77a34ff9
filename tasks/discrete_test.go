package tasks

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLevelFormat(t *testing.T) {
	f := LevelFormat{First: 10, Levels: 4}
	b, err := f.Parse([]Token{10, 13, 11, 10}, 4)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0, 0.75, 0.25, 0}, []float64(b), 1e-12)
	for name, toks := range map[string][]Token{
		"short":     {13, 13},
		"long":      {13, 13, 13, 13, 13},
		"below":     {9, 13, 13, 13},
		"above":     {14, 13, 13, 13},
		"negative":  {-1, 13, 13, 13},
		"all zero":  {10, 10, 10, 10},
		"structure": {EOT, 13, 13, 13},
	} {
		_, err := f.Parse(toks, 4)
		assert.Error(t, err, name)
	}
	assert.Equal(t, []Token{10, 13}, f.Encode([]int{0, 3}))
	assert.Panics(t, func() { f.Encode([]int{4}) })

	assert.Equal(t, []int{3, 3, 0, 1}, f.Quantize(Belief{0.4, 0.4, 0, 0.1}))
	assert.Equal(t, []int{0, 0}, f.Quantize(Belief{0, 0}))
	assert.Equal(t, []int{2, 3, 0, 1}, f.WithTop([]int{3, 3, 0, 1}, 1))
	assert.Equal(t, []int{0, 0, 3}, f.OneHot(3, 2))
}

func TestTopSetAndPlausible(t *testing.T) {
	assert.Equal(t, []int{0, 2}, TopSet(Belief{0.4, 0.2, 0.4}))
	assert.Equal(t, []int{1}, TopSet(Belief{0.1, 0.8, 0.1}))
	assert.Equal(t, []bool{true, false, true, false}, Plausible(Belief{0.5, 0, 0.5, 0}, 1))
	assert.Equal(t, []bool{true, true, false}, Plausible(Belief{0.6, 0.35, 0.05}, 0.1))
	assert.Equal(t, 2, Count([]bool{true, false, true}))
	assert.True(t, Eliminated([]bool{true, true}, []bool{true, false}))
	assert.False(t, Eliminated([]bool{true, false}, []bool{true, true}), "a re-entry is not an elimination")
}

func TestSplitsDeterministic(t *testing.T) {
	// Three hypotheses, flat belief; reply = answer[h].
	det := func(answer []int) func(h, v int) float64 {
		return func(h, v int) float64 {
			if answer[h] == v {
				return 1
			}
			return 0
		}
	}
	flat := Uniform(3)
	assert.True(t, Splits(flat, 1, 3, det([]int{0, 0, 1})), "two distinct answers")
	assert.False(t, Splits(flat, 1, 3, det([]int{2, 2, 2})), "one answer for all")
	// Hypothesis 2 already ruled out: a question that only separates it from
	// the rest does not split C.
	c2 := Belief{0.5, 0.5, 0}
	assert.False(t, Splits(c2, 1, 3, det([]int{0, 0, 1})))
	assert.True(t, Splits(c2, 1, 3, det([]int{0, 1, 1})))
}

func TestSplitsNoisy(t *testing.T) {
	// Likelihood ratio 9 between the hypotheses: with ratio 0.1 one reply
	// does not rule anything out; with 0.2 it does.
	lik := func(h, v int) float64 {
		if h == v {
			return 0.9
		}
		return 0.1
	}
	b := Uniform(2)
	assert.False(t, Splits(b, 0.1, 2, lik))
	assert.True(t, Splits(b, 0.2, 2, lik))
	same := func(h, v int) float64 { return 0.5 }
	assert.False(t, Splits(b, 0.5, 2, same))
}

func TestMutualInformation(t *testing.T) {
	det := func(h, v int) float64 {
		if h%2 == v {
			return 1
		}
		return 0
	}
	// A reply that halves four flat hypotheses carries log 2.
	assert.InDelta(t, math.Log(2), MutualInformation(Uniform(4), 2, det), 1e-12)
	same := func(h, v int) float64 { return 0.5 }
	assert.InDelta(t, 0, MutualInformation(Uniform(4), 2, same), 1e-12)
	// Noisy binary channel with flip 0.1: log 2 − H(0.1).
	noisy := func(h, v int) float64 {
		if h == v {
			return 0.9
		}
		return 0.1
	}
	h01 := -(0.1*math.Log(0.1) + 0.9*math.Log(0.9))
	assert.InDelta(t, math.Log(2)-h01, MutualInformation(Uniform(2), 2, noisy), 1e-12)
}

func TestConsistentCritiques(t *testing.T) {
	for _, c := range []struct {
		name                      string
		sizeC                     int
		malformed, repeat, splits bool
		want                      int8
	}{
		{"malformed", 3, true, false, true, -1},
		{"malformed after solved", 1, true, false, false, -1},
		{"solved", 1, false, false, false, 0},
		{"solved repeat", 1, false, true, false, 0},
		{"repeat", 3, false, true, true, -1},
		{"no split", 3, false, false, false, -1},
		{"split", 3, false, false, true, 1},
	} {
		assert.Equal(t, c.want, ConsistentAS(c.sizeC, c.malformed, c.repeat, c.splits), c.name)
	}
	c := []bool{true, true, false}
	for _, cse := range []struct {
		name       string
		b          Belief
		malformed  bool
		eliminated bool
		want       int8
	}{
		{"malformed", Belief{1, 0, 0}, true, true, -1},
		{"top outside C", Belief{0.2, 0.2, 0.6}, false, true, -1},
		{"tie reaching outside C", Belief{0.4, 0.2, 0.4}, false, true, -1},
		{"inside after elimination", Belief{0.5, 0.3, 0.2}, false, true, 1},
		{"inside, nothing eliminated", Belief{0.5, 0.3, 0.2}, false, false, 0},
	} {
		assert.Equal(t, cse.want, ConsistentBT(cse.b, cse.malformed, c, cse.eliminated), cse.name)
	}
}

func TestPerHypothesisBT(t *testing.T) {
	c := []bool{true, true, false, false}
	for _, cse := range []struct {
		name   string
		levels []int
		want   []int8
	}{
		{"exact posterior", []int{3, 3, 0, 0}, []int8{1, 1, 1, 1}},
		{"stale flat belief", []int{3, 3, 3, 3}, []int8{1, 1, -1, -1}},
		{"half the update", []int{3, 3, 3, 0}, []int8{1, 1, -1, 1}},
		{"a consistent fault lowered", []int{3, 1, 0, 0}, []int8{1, -1, 1, 1}},
		{"top levels need not be the highest token", []int{2, 2, 0, 1}, []int8{1, 1, 1, -1}},
	} {
		assert.Equal(t, cse.want, AppendPerHypothesisBT(nil, cse.levels, c), cse.name)
	}
}

func TestMassBT(t *testing.T) {
	c := []bool{true, true, false, false}
	flat := Belief{0.25, 0.25, 0.25, 0.25}
	for _, cse := range []struct {
		name       string
		b, prev    Belief
		malformed  bool
		eliminated bool
		want       int8
	}{
		{"malformed", flat, flat, true, true, -1},
		{"all on C", Belief{0.5, 0.5, 0, 0}, flat, false, true, 1},
		{"all on C, nothing eliminated, unchanged", Belief{0.5, 0.5, 0, 0}, Belief{0.5, 0.5, 0, 0}, false, false, 1},
		{"part of the update", Belief{0.4, 0.4, 0.2, 0}, flat, false, true, 1},
		{"stale after an elimination", flat, flat, false, true, -1},
		{"unchanged, nothing eliminated", flat, flat, false, false, 0},
		{"mass moved off C", Belief{0.1, 0.1, 0.4, 0.4}, flat, false, false, -1},
		{"moved within C only", Belief{0.6, 0, 0.2, 0.2}, Belief{0.3, 0.3, 0.2, 0.2}, false, false, 0},
	} {
		assert.Equal(t, cse.want, MassBT(cse.b, cse.prev, cse.malformed, c, cse.eliminated), cse.name)
	}
}

func TestMajorityBT(t *testing.T) {
	assert.Equal(t, int8(1), MajorityBT([]int8{1, 1, -1}))
	assert.Equal(t, int8(-1), MajorityBT([]int8{1, -1, -1, -1}))
	assert.Equal(t, int8(0), MajorityBT([]int8{1, -1}))
	assert.Equal(t, int8(0), MajorityBT(nil))
}

func TestBeliefGainsAndASProxy(t *testing.T) {
	proxy, cbt := BeliefGains(0.25, []float64{0.5, 0.4, 1})
	assert.InDelta(t, 0.25, proxy, 1e-12)
	assert.InDelta(t, 0.85, cbt, 1e-12)
	proxy, cbt = BeliefGains(0.25, nil)
	assert.True(t, math.IsNaN(proxy) && math.IsNaN(cbt))
	steps := []Step{{Kind: AS, Z: 1}, {Kind: BT, Z: 1}, {Kind: AS, Z: 0}, {Kind: AS, Z: -1}, {Kind: AS, Z: 1}}
	assert.InDelta(t, 0.5, ASProxy(steps), 1e-12)
	assert.True(t, math.IsNaN(ASProxy(steps[1:2])))
}

// FuzzLevelFormat: any token sequence either parses into a belief that sums
// to 1 with entries in [0, 1], or is an error; never a panic.
func FuzzLevelFormat(f *testing.F) {
	f.Add([]byte{10, 13, 11, 10})
	f.Add([]byte{10, 10, 10, 10})
	f.Add([]byte{255, 0, 14, 9})
	f.Add([]byte{})
	lf := LevelFormat{First: 10, Levels: 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		toks := make([]Token, len(data))
		for i, b := range data {
			toks[i] = Token(int8(b))
		}
		b, err := lf.Parse(toks, 4)
		if err != nil {
			return
		}
		sum := 0.0
		for _, x := range b {
			assert.True(t, x >= 0 && x <= 1)
			sum += x
		}
		assert.InDelta(t, 1, sum, 1e-12)
	})
}
