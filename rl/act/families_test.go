package act

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/tasks/textworld"
)

// With init_families, π_θ0 draws from the named families' training games
// only, at the share that gives it as many pairs as init_share of all.
func TestInitPairsKeepTheNamedFamilies(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Games, cfg.InitShare = 24, 0.25
	games, err := env.ExpertGames(textworld.Train, 0, cfg.Games, cfg.Collect.History)
	require.NoError(t, err)
	all, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, cfg.Collect.History)
	require.NoError(t, err)
	require.Equal(t, all, slices.Concat(games...), "ExpertPairs is ExpertGames in one slice")

	got, share, err := initPairs(cfg, env, games)
	require.NoError(t, err)
	assert.Equal(t, all, got, "no families: every game")
	assert.Equal(t, cfg.InitShare, share)

	cfg.InitFamilies = []string{"pick_and_place", "pick_heat_then_place"}
	got, share, err = initPairs(cfg, env, games)
	require.NoError(t, err)
	var want []textworld.Pair
	others := 0
	for i := range cfg.Games {
		f, err := env.Family(textworld.Train, i)
		require.NoError(t, err)
		ps, err := env.ExpertPairs(textworld.Train, i, 1, cfg.Collect.History)
		require.NoError(t, err)
		if slices.Contains(cfg.InitFamilies, f) {
			want = append(want, ps...)
		} else {
			others++
		}
	}
	require.NotEmpty(t, want)
	require.Positive(t, others, "some games are of other families")
	assert.Equal(t, want, got)
	assert.InDelta(t, cfg.InitShare*float64(len(all)), share*float64(len(got)), 1e-9, "as many pairs as init_share of all")

	cfg.InitFamilies = []string{"pick_and_place", "juggle"}
	_, _, err = initPairs(cfg, env, games)
	assert.ErrorContains(t, err, `no family "juggle"`)

	shop, err := NewEnv("webshop", nil)
	require.NoError(t, err)
	cfg.InitFamilies = []string{"pick_and_place"}
	_, _, err = initPairs(cfg, shop, nil)
	assert.ErrorContains(t, err, `no family "pick_and_place"`, "another environment's family")
	shop.Family = nil
	_, _, err = initPairs(cfg, shop, nil)
	assert.ErrorContains(t, err, "no task families")

	for _, bad := range [][]string{{""}, {"pick_and_place", "pick_and_place"}} {
		cfg.InitFamilies = bad
		assert.Error(t, cfg.Validate(), "%q", bad)
	}
}

// byFamily plays each of the first n ID games once, on the side of its
// family.
func TestByFamilySplitsTheIDGames(t *testing.T) {
	env, err := NewEnv("alfworld", nil)
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.InitFamilies = []string{"pick_and_place", "look_at_obj_in_light"}
	mc, err := model.NewConfig("tiny", env.Vocab.Size(), 256)
	require.NoError(t, err)
	m, err := model.New(mc, 1)
	require.NoError(t, err)
	const n = 12
	seen, unseen, err := cfg.byFamily(m, env, DecodeTrie, n)
	require.NoError(t, err)
	want := 0
	for i := range n {
		f, err := env.Family(textworld.Test, i)
		require.NoError(t, err)
		if slices.Contains(cfg.InitFamilies, f) {
			want++
		}
	}
	require.NotNil(t, seen)
	require.NotNil(t, unseen)
	assert.Equal(t, want, seen.Episodes)
	assert.Equal(t, n-want, unseen.Episodes)
}

// Every environment names its families, and each game's family is one of
// them, in both splits; every family has games among the first 60.
func TestEveryEnvironmentHasFamilies(t *testing.T) {
	for _, name := range []string{"alfworld", "webshop", "sciworld"} {
		env, err := NewEnv(name, nil)
		require.NoError(t, err)
		require.NotEmpty(t, env.Families, name)
		seen := map[string]bool{}
		for _, split := range []textworld.Split{textworld.Train, textworld.Test} {
			for i := range 60 {
				f, err := env.Family(split, i)
				require.NoError(t, err, name)
				require.Contains(t, env.Families, f, name)
				seen[f] = true
			}
		}
		assert.Len(t, seen, len(env.Families), "%s: every family occurs", name)
	}
}

// The held-out next-action hits split by family: the two shares weigh
// back to the whole one, and each side holds the pairs of its games.
func TestOfflineByFamilySplitsTheHeldOutStates(t *testing.T) {
	env, err := NewEnv("sciworld", nil)
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.InitFamilies = []string{"boil", "melt"}
	games, err := env.ExpertGames(textworld.Test, 0, 10, 2)
	require.NoError(t, err)
	pairs := slices.Concat(games...)
	var inPairs int
	for j, g := range games {
		f, err := env.Family(textworld.Test, j)
		require.NoError(t, err)
		if slices.Contains(cfg.InitFamilies, f) {
			inPairs += len(g)
		}
	}
	require.Positive(t, inPairs)
	require.Less(t, inPairs, len(pairs), "both sides have pairs")
	// Hits on every third pair, so the two shares differ from the whole.
	hits := make([]bool, len(pairs))
	total := 0
	for i := range hits {
		hits[i] = i%3 == 0
		if hits[i] {
			total++
		}
	}
	seen, unseen, err := cfg.offlineByFamily(env, games, hits)
	require.NoError(t, err)
	require.NotNil(t, seen)
	require.NotNil(t, unseen)
	assert.InDelta(t, float64(total), *seen*float64(inPairs)+*unseen*float64(len(pairs)-inPairs), 1e-9)
	assert.Equal(t, float64(total)/float64(len(pairs)), hitShare(hits))

	cfg.InitFamilies = env.Families // every game is π_θ0's
	seen, unseen, err = cfg.offlineByFamily(env, games, hits)
	require.NoError(t, err)
	assert.Nil(t, unseen)
	assert.Equal(t, hitShare(hits), *seen)
}
