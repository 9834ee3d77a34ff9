package study

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/tasks"
)

// Every lock candidate is a base recipe of the shared mechanism: careful
// strong and hasty locked(LockQAS, q_BT) sources on the setting's layout,
// whose tasks build; q_BT 0.02 is FloDial-Easy's recipe on another task.
// PE-F D=6's add the careful echo stage before them and DAgger on the
// careful source: its best capability recipe, styled.
func TestLockCandidates(t *testing.T) {
	for name, recipe := range lockCandidates {
		cfg := recipe()
		require.Contains(t, Bases, name)
		src, _, err := rl.BaseSources(cfg)
		require.NoError(t, err, name)
		careful, hasty := src[len(src)-2], src[len(src)-1]
		assert.Equal(t, tasks.Careful, careful.DemoSource.Name, name)
		assert.Equal(t, "strong", careful.DemoSource.Policy.Kind, name)
		assert.Equal(t, tasks.Hasty, hasty.DemoSource.Name, name)
		assert.Equal(t, "locked", hasty.DemoSource.Policy.Kind, name)
		assert.Equal(t, LockQAS, hasty.DemoSource.Policy.QAS, name)
		assert.Contains(t, LockQBT, hasty.DemoSource.Policy.QBT, name)
		assert.Equal(t, hasty.DemoSource.Policy.QBT, hastyQBT(cfg), name)
		if len(src) == 2 {
			continue
		}
		require.Len(t, src, 3, name)
		assert.Equal(t, "pe-f-d6", cfg.Task, name)
		want := Capabilities["pe-f-d6-echo-then-pairs-dagger-base"]()
		for i, s := range cfg.Sources[:2] {
			assert.Equal(t, tasks.Careful, s.Style, name)
			s.Name, s.Style = want.Sources[i].Name, ""
			assert.Equal(t, want.Sources[i], s, "%s: the best recipe's source %d, styled", name, i)
		}
		assert.Equal(t, cfg.Sources[1].Epochs, cfg.Sources[2].Epochs, "%s: the hasty demonstrations train beside the last stage", name)
		assert.Equal(t, cfg.Sources[1].TaskConfig, cfg.Sources[2].TaskConfig, name)
		assert.Equal(t, 1, cfg.DAggerSource(), "%s: DAgger plays the careful source", name)
		want.Sources, want.DAgger.Source = cfg.Sources, tasks.Careful
		assert.Equal(t, want, cfg, "%s: otherwise the best recipe", name)
	}
	assert.Len(t, lockCandidates, 5*len(LockQBT))
	for _, q := range LockQBT {
		assert.Contains(t, Bases, LockCandidate("flodial-easy", q), "FloDial-Easy's bases carry the same names")
	}
	assert.Equal(t, []string{"mediq-locked", "mediq-locked-bt006", "mediq-locked-bt015"},
		[]string{LockCandidate("mediq", 0.02), LockCandidate("mediq", 0.06), LockCandidate("mediq", 0.15)})
	easy := FloDialEasyLocked()
	easy.Task = "flodial-hard"
	assert.Equal(t, easy, lockCandidates["flodial-hard-locked"]())
}
