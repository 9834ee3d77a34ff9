package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
)

// Every lock candidate is a base recipe of the shared mechanism: careful
// strong and hasty locked(LockQAS, q_BT) sources on the setting's layout,
// whose tasks build; q_BT 0.02 is FloDial-Easy's recipe on another task.
func TestLockCandidates(t *testing.T) {
	for name, recipe := range lockCandidates {
		cfg := recipe()
		require.Contains(t, Bases, name)
		src, _, err := rl.BaseSources(cfg)
		require.NoError(t, err, name)
		require.Len(t, src, 2)
		assert.Equal(t, "strong", src[0].DemoSource.Policy.Kind, name)
		assert.Equal(t, "locked", src[1].DemoSource.Policy.Kind, name)
		assert.Equal(t, LockQAS, src[1].DemoSource.Policy.QAS, name)
		assert.Contains(t, LockQBT, src[1].DemoSource.Policy.QBT, name)
	}
	assert.Len(t, lockCandidates, 4*len(LockQBT))
	for _, q := range LockQBT {
		assert.Contains(t, Bases, LockCandidate("flodial-easy", q), "FloDial-Easy's bases carry the same names")
	}
	assert.Equal(t, []string{"mediq-locked", "mediq-locked-bt006", "mediq-locked-bt015"},
		[]string{LockCandidate("mediq", 0.02), LockCandidate("mediq", 0.06), LockCandidate("mediq", 0.15)})
	easy := FloDialEasyLocked()
	easy.Task = "flodial-hard"
	assert.Equal(t, easy, lockCandidates["flodial-hard-locked"]())
}
