package run

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/kernels"
)

func TestProvenanceDescribesThisProcess(t *testing.T) {
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	p := Collect(start)
	assert.Equal(t, kernels.Impl(), p.KernelSet)
	assert.Contains(t, []string{"avx512", "avx2", "neon", "go"}, p.KernelSet)
	assert.NotEmpty(t, p.CPU)
	assert.Regexp(t, regexp.MustCompile(`^([0-9a-f]{40}(\+dirty)?|unknown)$`), p.Commit)
	assert.True(t, p.End.IsZero())
	p.Finish(start.Add(90*time.Second), 90*time.Second+400*time.Microsecond)
	assert.Equal(t, 90.0, p.WallSeconds)

	data, err := json.Marshal(p)
	require.NoError(t, err)
	var back Provenance
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, p, back)
	assert.Contains(t, string(data), `"kernel_set"`)
	assert.Contains(t, string(data), `"start":"2026-12-02T01:00:00Z"`)
}
