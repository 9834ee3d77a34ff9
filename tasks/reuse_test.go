package tasks

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The helpers' in-place variants, called again and again on the same
// (dirty) memory as an episode calls them, give what the allocating
// versions give on fresh memory.

func TestSeedInstanceMatchesInstanceRNG(t *testing.T) {
	var p rand.PCG // held by value, as an episode holds it
	r := rand.New(&p)
	for _, c := range []struct {
		split  Split
		index  int
		stream uint64
	}{{Train, 0, 1}, {Train, 7, 2}, {Test, 7, 1}, {Test, 123456, 9}} {
		want, err := InstanceRNG(42, c.split, c.index, c.stream)
		require.NoError(t, err)
		require.NoError(t, SeedInstance(&p, 42, c.split, c.index, c.stream))
		for range 20 {
			assert.Equal(t, want.Uint64(), r.Uint64(), "%+v", c)
		}
	}
	assert.Error(t, SeedInstance(&p, 42, Train, -1, 1))
	assert.Error(t, SeedInstance(&p, 42, Split(9), 0, 1))
}

func TestParseIntoMatchesParse(t *testing.T) {
	f := LevelFormat{First: 10, Levels: 4}
	rng := rand.New(rand.NewPCG(1, 2))
	var dst Belief
	for i := range 2000 {
		n := 1 + rng.IntN(5)
		toks := make([]Token, rng.IntN(7))
		for j := range toks {
			toks[j] = Token(8 + rng.IntN(7)) // some below, some above the levels
			if rng.IntN(4) == 0 {
				toks[j] = 10 // a zero level: some beliefs have no mass
			}
		}
		want, err := f.Parse(toks, n)
		got, ok := f.ParseInto(dst, toks, n)
		require.Equal(t, err == nil, ok, "case %d: %v", i, toks)
		if ok {
			assert.Equal(t, want, got, "case %d", i)
			dst = got
		} else {
			assert.Nil(t, got)
		}
	}
}

func TestSplitsIntoMatchesSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Scratch
	var plaus []bool
	var upd Belief
	var zs []int8
	for i := range 500 {
		n := 2 + rng.IntN(7)
		b := make(Belief, n)
		for h := range b {
			if rng.IntN(3) > 0 {
				b[h] = rng.Float64()
			}
		}
		b[rng.IntN(n)] += 0.1
		require.NoError(t, b.Normalize())
		table := make([][]float64, n) // P(v | h), some zeros
		for h := range table {
			table[h] = make([]float64, 3)
			for v := range table[h] {
				if rng.IntN(2) == 0 {
					table[h][v] = rng.Float64()
				}
			}
		}
		lik := func(h, v int) float64 { return table[h][v] }
		ratio := []float64{0.5, 0.1, 1}[i%3]
		assert.Equal(t, Splits(b, ratio, 3, lik), SplitsInto(b, ratio, 3, lik, &s), "case %d", i)
		plaus = PlausibleInto(plaus, b, ratio)
		assert.Equal(t, Plausible(b, ratio), plaus, "case %d", i)
		want, err := b.Update(func(h int) float64 { return lik(h, 0) })
		got, err2 := b.UpdateInto(upd, func(h int) float64 { return lik(h, 0) })
		require.Equal(t, err == nil, err2 == nil, "case %d", i)
		if err == nil {
			assert.Equal(t, want, got, "case %d", i)
			upd = got
		}
		levels := make([]int, n)
		for h := range levels {
			levels[h] = rng.IntN(4)
		}
		k := len(zs)
		zs = AppendPerHypothesisBT(zs, levels, plaus)
		assert.Equal(t, AppendPerHypothesisBT(nil, levels, plaus), zs[k:], "case %d", i)
		// ConsistentBT no longer lists the top set; it judges as if it did.
		lv := make(Belief, n)
		for h, l := range levels {
			lv[h] = float64(l)
		}
		for _, elim := range []bool{false, true} {
			want := int8(0)
			if elim {
				want = 1
			}
			for _, h := range TopSet(lv) {
				if !plaus[h] {
					want = -1
				}
			}
			assert.Equal(t, want, ConsistentBT(lv, false, plaus, elim), "case %d", i)
		}
	}
}

func TestRoundsRestart(t *testing.T) {
	r := NewRounds(2)
	judge := func([]Token) ([]Token, Step) { return nil, Step{Z: 1, Text: "x"} }
	for range 4 {
		_, _, err := r.Play("t", nil, judge, judge)
		require.NoError(t, err)
	}
	require.True(t, r.Done())
	r.Restart(3)
	fresh := NewRounds(3)
	assert.Equal(t, fresh.Turn(), r.Turn())
	assert.Empty(t, r.Steps())
	assert.False(t, r.Done())
	for range 6 {
		_, _, err := r.Play("t", nil, judge, judge)
		require.NoError(t, err)
		_, _, err = fresh.Play("t", nil, judge, judge)
		require.NoError(t, err)
	}
	assert.Equal(t, fresh.Steps(), r.Steps())
	assert.True(t, r.Done())
}
