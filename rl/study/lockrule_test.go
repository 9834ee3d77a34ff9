package study

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// Each setting's shipped base is the one the §8 step-3 rule picks from
// its candidates' committed validation tables (FloDial-Easy's three
// bases included: the rule picks the one §6 chose). The committed
// candidates are the first of LockQBT's: the rule's pick is known once
// one of them qualifies (none with a smaller q_BT does) or all are
// committed; until then the setting has no base.
func TestLockRuleChoosesTheShippedBases(t *testing.T) {
	bases := map[string]string{}
	for _, s := range append(Table1Settings(), TelecomSettings()...) {
		bases[s.Name] = s.Base
	}
	assert.Equal(t, []string{"flodial-easy", "flodial-hard", "mediq", "pe-f-d6", "telecom-dual", "telecom-solo"}, LockSettings())
	for _, setting := range LockSettings() {
		cands, err := ReadLockCandidates(committedResults, setting)
		require.NoError(t, err)
		picked, report, err := LockChoice(committedResults, setting)
		if len(cands) == 0 {
			assert.Error(t, err)
			assert.Empty(t, bases[setting], "%s: no candidate, no base", setting)
			continue
		}
		require.NoError(t, err)
		if picked == "" {
			assert.Contains(t, report, "waits for")
			assert.Empty(t, bases[setting], "%s: a base the rule cannot pick yet", setting)
			continue
		}
		for i, c := range cands {
			assert.Equal(t, LockQBT[i], hastyQBT(c.Config), c.Name)
		}
		assert.Equal(t, picked, bases[setting], "%s\n%s", setting, report)
		assert.Contains(t, report, picked+" ")
		assert.True(t, Shipped(bases[setting]))
		i := slices.IndexFunc(cands, func(c *BaseSummary) bool { return c.Name == picked })
		assert.Equal(t, cands[i].SHA256, shippedSHA(t, bases[setting]), "the shipped file is the candidate's")
	}
}

// The candidates are read as -build-base writes them (<dir>/<name>/) or
// as docs/results commits them (base-<name>/); until one qualifies and
// while a larger q_BT is not built, the pick waits; a folder holding
// another base, or an unknown setting, is refused.
func TestLockChoiceReadsBuiltCandidates(t *testing.T) {
	dir := t.TempDir()
	copyCand := func(name, to string) {
		data, err := os.ReadFile(filepath.Join(committedResults, "base-"+name, BaseSummaryFile))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, to), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, to, BaseSummaryFile), data, 0o644))
	}
	_, _, err := LockChoice(dir, "telecom-dual")
	assert.ErrorContains(t, err, "no candidate of telecom-dual is built")
	copyCand("telecom-dual-locked", "telecom-dual-locked")
	picked, report, err := LockChoice(dir, "telecom-dual")
	require.NoError(t, err)
	assert.Empty(t, picked, "its one candidate misses the AS proxy")
	assert.Contains(t, report, "waits for telecom-dual-locked-bt006")
	copyCand("telecom-dual-locked-bt006", "base-telecom-dual-locked-bt006")
	copyCand("telecom-dual-locked-bt015", "telecom-dual-locked-bt015")
	picked, report, err = LockChoice(dir, "telecom-dual")
	require.NoError(t, err)
	assert.Equal(t, "telecom-dual-locked", picked, "none qualifies: the fewest missed, the smallest q_BT")
	assert.Contains(t, report, "**chosen**")

	copyCand("mediq-locked", "telecom-solo-locked")
	_, _, err = LockChoice(dir, "telecom-solo")
	assert.ErrorContains(t, err, `holds base "mediq-locked"`)
	_, _, err = LockChoice(dir, "pe-g-s2")
	assert.ErrorContains(t, err, "no lock candidates")
}

// With no candidate qualifying, the rule takes the one missing the
// fewest criteria, the smallest q_BT on a tie; a missing row is an error.
func TestChooseLockWithoutAQualifier(t *testing.T) {
	cand := func(name string, qbt, success, careful float64) *BaseSummary {
		s := &BaseSummary{Name: name, Config: lockedBase("mediq", nil, qbt)}
		row := func(source, policy string, m run.Measures) BaseRow {
			return BaseRow{Source: source, Policy: policy, Measures: &m}
		}
		s.Rows = []BaseRow{
			row("hasty", "base, sampled", run.Measures{Success: run.Num(success), ASProxy: 0.1, IAS: 0.1}),
			row("hasty", "best constant (x)", run.Measures{Success: 0.2}),
			row("hasty", "scripted random", run.Measures{ASProxy: 0.3, IAS: 0.3}),
			row("careful", "base, greedy", run.Measures{Success: run.Num(careful)}),
			row("careful", "scripted strong", run.Measures{Success: 1}),
		}
		return s
	}
	chosen, vs, err := ChooseLock([]*BaseSummary{cand("a", 0.02, 0.5, 0.5), cand("b", 0.06, 0.2, 0.5), cand("c", 0.15, 0.2, 0.5)})
	require.NoError(t, err)
	assert.Equal(t, 1, chosen, "b and c miss one criterion each; b has the smaller q_BT")
	assert.Len(t, vs[0].Missed, 2)
	assert.Equal(t, []string{"careful greedy success below 0.85 × strong's"}, vs[1].Missed)
	chosen, _, err = ChooseLock([]*BaseSummary{cand("a", 0.02, 0.5, 0.9), cand("b", 0.06, 0.2, 0.9)})
	require.NoError(t, err)
	assert.Equal(t, 1, chosen, "the qualifier")
	assert.Contains(t, LockTable(vs, 1), "no: careful greedy success below 0.85 × strong's — **chosen**")

	bad := cand("d", 0.02, 0.2, 0.9)
	bad.Rows = bad.Rows[1:]
	_, _, err = ChooseLock([]*BaseSummary{bad})
	assert.ErrorContains(t, err, `no row "base, sampled"`)
}

func shippedSHA(t *testing.T, name string) string {
	data, err := shipped.ReadFile(shippedPath(name))
	require.NoError(t, err)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
