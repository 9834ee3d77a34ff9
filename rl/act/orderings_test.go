package act

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl/run"
)

func nums(xs ...float64) []run.Num {
	out := make([]run.Num, len(xs))
	for i, x := range xs {
		out[i] = run.Num(x)
	}
	return out
}

// An ordering is paired by seed, and a tie at zero (both rows 0: nothing
// was measured) never counts as holding, on a seed or on the mean.
func TestOrderingsArePairedAndIgnoreZeroTies(t *testing.T) {
	o := diff("zeros", 1, 0, nums(0, 0, 0), nums(0, 0, 0), false)
	assert.False(t, o.MeanHolds, "0 ≥ 0 everywhere is not a result")
	assert.False(t, o.Holds)
	assert.Equal(t, 0, o.Seeds)
	assert.Equal(t, 3, o.Of)

	o = diff("equal, measured", 1, 0, nums(30, 30), nums(30, 30), false)
	assert.True(t, o.Holds)
	assert.Equal(t, run.Num(0), o.SE)
	assert.Equal(t, 2, o.Seeds)

	o = diff("one seed measured", 1, 0, nums(10, 0, 4), nums(5, 0, 6), false)
	assert.Equal(t, nums(5, 0, -2), o.PerSeed)
	assert.Equal(t, 1, o.Seeds, "the gain counts, the zero tie and the loss do not")
	assert.InDelta(t, 1, float64(o.Ours), 1e-12)
	assert.InDelta(t, math.Sqrt(13.0/3), float64(o.SE), 1e-12, "std of 5, 0, -2 (7, n−1) over √3")
	assert.True(t, o.MeanHolds, "the mean has the sign")
	assert.False(t, o.Holds, "on one seed in three")

	o = diff("strict", 1, 0, nums(3, 3), nums(3, 3), true)
	assert.False(t, o.Holds)
}

// An ordering holds on four seeds in five, not three, and only when its
// mean clears the margin.
func TestOrderingsNeedFourSeedsInFiveAndTheMargin(t *testing.T) {
	zero := nums(0, 0, 0, 0, 0)
	for _, c := range []struct {
		a                []float64
		margin           float64
		seeds            int
		meanHolds, holds bool
	}{
		{[]float64{3, 3, 3, 3, -1}, 2, 4, true, true},   // mean 2.2 ≥ 2, 4/5
		{[]float64{3, 3, 3, -1, -1}, 0, 3, true, false}, // 3/5 seeds
		{[]float64{3, 3, 3, 3, -5}, 2, 4, false, false}, // mean 1.4 < 2
		{[]float64{1, 1, 1, 1, 1}, 2, 5, false, false},  // every seed, mean under the margin
		{[]float64{-1, -1, -1, -1, -1}, 0, 0, false, false},
	} {
		o := diff("c", 0, c.margin, nums(c.a...), zero, false)
		assert.Equal(t, c.seeds, o.Seeds, "%v", c.a)
		assert.Equal(t, c.meanHolds, o.MeanHolds, "%v", c.a)
		assert.Equal(t, c.holds, o.Holds, "%v", c.a)
	}
}

// A study of one environment reads the orderings on that environment's
// own column, beside the paper's number there, instead of on an average
// it cannot form; the orderings of rows it does not run are left out.
func TestOrderingsOfOneEnvironment(t *testing.T) {
	online := func(x float64) *Online { o := &Online{}; o.Success = x; return o }
	rep := func(prompting, act float64) *Report {
		return &Report{Rows: []RowResult{
			{Row: RowPrompting, ID: online(prompting), OOD: online(0)},
			{Row: RowACT, ID: online(act), OOD: online(0)},
		}}
	}
	cfg := SmokeStudy()
	cfg.Runs = cfg.Runs[:1]
	require.Equal(t, "alfworld", cfg.Runs[0].Env)
	cfg.Runs[0].Rows = []string{RowPrompting, RowACT}
	s := &Summary{Seeds: []uint64{1, 2, 3, 4, 5}}
	for _, d := range []float64{0.02, 0.03, 0.01, 0.02, -0.01} {
		s.add("alfworld", rep(0.10, 0.10+d))
	}
	s.finish(cfg)
	var o Ordering
	for _, x := range s.Orderings {
		if strings.HasPrefix(x.Claim, "ACT > prompting") {
			o = x
		}
	}
	assert.Equal(t, "ACT > prompting (ALFWorld ID)", o.Claim)
	assert.InDelta(t, 72.86-35.71, float64(o.Paper), 1e-9)
	assert.InDelta(t, 1.4, float64(o.Ours), 1e-9)
	assert.Equal(t, 4, o.Seeds)
	assert.True(t, o.Holds)
	require.Len(t, s.Orderings, 1, "the orderings of rows the study does not run are left out")
	assert.NotContains(t, s.Report(), "0/0")
}

// A study whose π_θ0 trained on some families splits each column of the
// paper's average by family (ALFWorld and WebShop online, ScienceWorld
// offline) and reads the orderings on the other families, paired by seed;
// a study without init_families has no such table.
func TestFamilyTableSplitsTheColumnsAndReadsTheUnseen(t *testing.T) {
	online := func(x float64) *Online { o := &Online{}; o.Success = x; return o }
	f := func(x float64) *float64 { return &x }
	// rep is one seed's report on env: prompting and ACT, with the given
	// value on π_θ0's families and on the others.
	rep := func(env string, pSeen, pUnseen, aSeen, aUnseen float64) *Report {
		row := func(name string, seen, unseen float64) RowResult {
			r := RowResult{Row: name, ID: online(0.5), OOD: online(0), Offline: f(0.5)}
			if env == "sciworld" {
				r.OfflineSeen, r.OfflineUnseen = f(seen), f(unseen)
			} else {
				r.IDSeen, r.IDUnseen = online(seen), online(unseen)
			}
			return r
		}
		return &Report{Rows: []RowResult{row(RowPrompting, pSeen, pUnseen), row(RowACT, aSeen, aUnseen)}}
	}
	cfg := SmokeStudy()
	require.Len(t, cfg.Runs, 3)
	for i := range cfg.Runs {
		cfg.Runs[i].Rows = []string{RowPrompting, RowACT}
	}
	s := &Summary{Seeds: []uint64{1, 2, 3, 4, 5}}
	for _, env := range []string{"alfworld", "webshop", "sciworld"} {
		for range 5 {
			s.add(env, rep(env, 0.5, 0.5, 0.5, 0.5))
		}
	}
	s.finish(cfg)
	assert.Empty(t, s.Families, "no init_families, no family table")
	assert.NotContains(t, s.Report(), "task families")

	cfg.Runs[1].InitFamilies = []string{"shirt"} // WebShop's runs only
	s = &Summary{Seeds: []uint64{1, 2, 3, 4, 5}}
	for _, env := range []string{"alfworld", "webshop", "sciworld"} {
		for i, d := range []float64{0.02, 0.03, 0.01, 0.02, -0.01} {
			s.add(env, rep(env, 0.4, 0.125*float64(i), 0.3, 0.125*float64(i)+d))
		}
	}
	s.finish(cfg)
	assert.Equal(t, []string{"WebShop, π_θ0's families", "WebShop, other families"}, s.FamilyColumns)
	require.Len(t, s.Families, 2)
	assert.InDelta(t, 30, float64(s.Families[1].Cells[0].Mean), 1e-9, "ACT on π_θ0's families, percent")
	assert.Equal(t, nums(0, 12.5, 25, 37.5, 50), s.Families[0].Cells[1].PerSeed, "prompting on the others, seed by seed")
	require.Len(t, s.FamilyOrderings, 1, "only ACT > prompting: the study has no IL or RL rows")
	o := s.FamilyOrderings[0]
	assert.Equal(t, "ACT > prompting (WebShop, other families)", o.Claim)
	assert.InDelta(t, 1.4, float64(o.Ours), 1e-9)
	assert.Equal(t, 4, o.Seeds)
	assert.True(t, o.Holds)
	assert.True(t, math.IsNaN(float64(o.Paper)), "the paper does not split by family")
	assert.Contains(t, s.Report(), "ACT > prompting (WebShop, other families)")

	cfg.Runs[2].InitFamilies = []string{"boil"} // and ScienceWorld's, offline
	s.finish(cfg)
	assert.Equal(t, "ScienceWorld, other families", s.FamilyColumns[3])
	assert.Equal(t, nums(0, 12.5, 25, 37.5, 50), s.Families[0].Cells[3].PerSeed)
	assert.Len(t, s.FamilyOrderings, 2)
}
