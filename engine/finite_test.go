package engine

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstNonFinite(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		x    []float32
		want int
	}{
		{nil, -1},
		{[]float32{0, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}, -1},
		{[]float32{nan}, 0},
		{[]float32{1, 2, inf}, 2},
		{[]float32{1, -inf, nan}, 1},
	} {
		assert.Equal(t, tc.want, FirstNonFinite(tc.x), "%v", tc.x)
	}
}

// SaveParams refuses non-finite weights and writes nothing; LoadParams
// refuses them and changes nothing.
func TestParamsMustBeFinite(t *testing.T) {
	dir := t.TempDir()
	s := NewParamStore()
	p, err := s.Add("w", []int{2, 3}, Constant(1))
	require.NoError(t, err)
	s.Init(1)
	path := filepath.Join(dir, "p.safetensors")
	p.Data()[4] = float32(math.NaN())
	err = SaveParams(s, path, nil)
	assert.ErrorContains(t, err, `"w" holds 1 non-finite values (the first, NaN, at index 4 of 6)`)
	assert.NoFileExists(t, path)

	require.NoError(t, SaveSafetensors(path, []NamedTensor{{Name: "w", Shape: []int{2, 3}, Data: []float32{1, 2, 3, float32(math.Inf(-1)), 5, 6}}}, nil))
	p.Data()[4] = 7
	_, err = LoadParams(s, path)
	assert.ErrorContains(t, err, "non-finite")
	assert.Equal(t, []float32{1, 1, 1, 1, 7, 1}, p.Data())
	assert.NoError(t, CheckFinite([]NamedTensor{{Name: "i", Shape: []int{1}, Data: []int32{1}}}))
}
