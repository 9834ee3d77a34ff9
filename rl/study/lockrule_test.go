package study

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

// readBaseSummary reads a committed base build's summary.json; ok is
// false when the folder is not committed.
func readBaseSummary(t *testing.T, name string) (*BaseSummary, bool) {
	data, err := os.ReadFile(filepath.Join(committedResults, "base-"+name, BaseSummaryFile))
	if os.IsNotExist(err) {
		return nil, false
	}
	require.NoError(t, err)
	var s BaseSummary
	require.NoError(t, json.Unmarshal(data, &s))
	return &s, true
}

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
	for _, setting := range []string{"flodial-easy", "mediq", "flodial-hard", "telecom-solo", "telecom-dual"} {
		var cands []*BaseSummary
		for _, suffix := range []string{"-locked", "-locked-bt006", "-locked-bt015"} {
			s, ok := readBaseSummary(t, setting+suffix)
			if !ok {
				break
			}
			cands = append(cands, s)
		}
		chosen, vs, err := ChooseLock(cands)
		if len(cands) == 0 || (len(cands) < len(LockQBT) && !vs[chosen].Qualifies()) {
			assert.Empty(t, bases[setting], "%s: a base the rule cannot pick yet", setting)
			continue
		}
		require.NoError(t, err)
		for i, v := range vs {
			assert.Equal(t, LockQBT[i], v.QBT, v.Name)
		}
		assert.Equal(t, cands[chosen].Name, bases[setting], "%s\n%s", setting, LockTable(vs, chosen))
		assert.True(t, Shipped(bases[setting]))
		assert.Equal(t, cands[chosen].SHA256, shippedSHA(t, bases[setting]), "the shipped file is the candidate's")
	}
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
