package rl

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// baseWeights is a copy of every parameter of b's policy.
func baseWeights(b *Base) [][]float32 {
	var out [][]float32
	for _, p := range b.Policy.Params.Params() {
		out = append(out, append([]float32(nil), p.Data()...))
	}
	return out
}

// untimedEpoch is e without its clock readings, which a resumed build cannot
// repeat, and without the SFT's own held-out fields, which a base build
// leaves NaN (its fits are per source), so that == compares the rest.
func untimedEpoch(e BaseEpoch) BaseEpoch {
	e.Seconds, e.TokensPerSec = 0, 0
	e.TestLoss, e.TestAccuracy = 0, 0
	if e.DAgger != nil {
		r := *e.DAgger
		r.Seconds = 0
		e.DAgger = &r
	}
	return e
}

// saveBase writes b's state into a fresh folder and reads its files back,
// as the run layer's checkpoint set holds them.
func saveBase(t *testing.T, b *Base) (string, map[string][]byte) {
	dir := t.TempDir()
	names, err := b.WriteState(dir, map[string]string{"test": "resume"})
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		files[n] = data
	}
	return dir, files
}

// A base build stopped after any epoch (after its SFT, inside a DAgger
// round, after a round's collection) and restored into a fresh build
// trains on to the same weights and the same epochs, bit for bit.
func TestBaseResumeIsBitwise(t *testing.T) {
	newBase := func() *Base {
		b, err := NewBase(context.Background(), daggerBase())
		require.NoError(t, err)
		t.Cleanup(b.Close)
		return b
	}
	whole := newBase()
	var epochs []BaseEpoch
	saved := map[int]map[string][]byte{}
	var dirs = map[int]string{}
	for range whole.Epochs() {
		e, err := whole.Epoch(t.Context())
		require.NoError(t, err)
		epochs = append(epochs, untimedEpoch(e))
		dirs[whole.Updates()], saved[whole.Updates()] = saveBase(t, whole)
	}
	require.Equal(t, 5, whole.Epochs())
	assert.NotContains(t, saved[1], DAggerDemosFile, "no round has played after the SFT epoch")
	assert.Contains(t, saved[2], DAggerDemosFile)
	for _, k := range []int{1, 2, 4} {
		b := newBase()
		require.NoError(t, b.LoadState(dirs[k], k, saved[k]), "after epoch %d", k)
		require.Equal(t, k, b.Updates())
		for i := k; i < b.Epochs(); i++ {
			e, err := b.Epoch(t.Context())
			require.NoError(t, err)
			assert.Equal(t, epochs[i], untimedEpoch(e), "resumed after epoch %d: epoch %d", k, i+1)
		}
		assert.Equal(t, baseWeights(whole), baseWeights(b), "resumed after epoch %d", k)
	}
}

// A set that is not this build's, or not whole, is refused before the
// build changes.
func TestBaseLoadStateRefuses(t *testing.T) {
	b, err := NewBase(context.Background(), daggerBase())
	require.NoError(t, err)
	t.Cleanup(b.Close)
	for range 2 {
		_, err := b.Epoch(t.Context())
		require.NoError(t, err)
	}
	dir, files := saveBase(t, b)

	fresh := func(mod func(*BaseConfig)) *Base {
		c := daggerBase()
		if mod != nil {
			mod(&c)
		}
		f, err := NewBase(context.Background(), c)
		require.NoError(t, err)
		t.Cleanup(f.Close)
		return f
	}
	before := baseWeights(fresh(nil))
	other := fresh(func(c *BaseConfig) { c.Seed = 5 })
	assert.ErrorContains(t, other.LoadState(dir, 2, files), "seed")

	f := fresh(nil)
	assert.ErrorContains(t, f.LoadState(dir, 3, files), "not a base build's state")
	partial := map[string][]byte{}
	for k, v := range files {
		if k != DAggerDemosFile {
			partial[k] = v
		}
	}
	assert.ErrorContains(t, f.LoadState(dir, 2, partial), "needs")
	bad := map[string][]byte{}
	for k, v := range files {
		bad[k] = v
	}
	bad[DAggerDemosFile] = []byte("not gob")
	assert.ErrorContains(t, f.LoadState(dir, 2, bad), DAggerDemosFile)
	assert.Equal(t, before, baseWeights(f), "a refused set changes nothing")
	assert.Zero(t, f.Updates())

	require.NoError(t, f.LoadState(dir, 2, files))
	assert.ErrorContains(t, f.LoadState(dir, 2, files), "already trained")
}
