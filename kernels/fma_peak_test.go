package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFMAPeakCountsFlopsAndRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		isa   string
		have  bool
		lanes float64
	}{{"avx2", hasAVX2FMA && asmBuilt, 8}, {"avx512", hasAVX512F && asmBuilt, 16}} {
		f, err := FMAPeak(c.isa, 10)
		if !c.have {
			assert.Error(t, err, c.isa)
			continue
		}
		require.NoError(t, err, c.isa)
		assert.Equal(t, 10*24*c.lanes*2, f, c.isa)
	}
	_, err := FMAPeak("sse", 1)
	assert.Error(t, err)
	_, err = FMAPeak("avx2", -1)
	assert.Error(t, err)
}
