//go:build long

package act

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks/textworld"
)

// TestDecodersOnTheILModel makes docs/act.md §11's table: one IL model of
// act-alfworld's sizing before the full splits (tiny preset, 200 ALFWorld
// games, every OOD game unusual as then, seed 11: π_θ0 and IL
// exactly as Run trains them, so its free row is §9's seed-11 IL) played
// greedily under each decoder on the same 100 ID and 100 OOD games, and
// its next-action accuracy on the 20 held-out games' expert states. About
// 100 s a seed with GOMAXPROCS=1 on a shared core:
//
//	GOMAXPROCS=1 go test -tags long -run TestDecodersOnTheILModel -v -timeout 30m ./rl/act
//
// ACT_DECODER_SEEDS=11,12,13 measures those seeds instead, one table each.
func TestDecodersOnTheILModel(t *testing.T) {
	seeds := []uint64{11}
	if s := os.Getenv("ACT_DECODER_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			x, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			require.NoError(t, err, "ACT_DECODER_SEEDS")
			seeds = append(seeds, x)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) { decodersOnTheILModel(t, seed) })
	}
}

func decodersOnTheILModel(t *testing.T, seed uint64) {
	cfg := seeded(tableRun("alfworld", 0), seed, "")
	cfg.Games = 200                                      // the sizing docs/act.md §11 was measured at
	cfg.EnvConfig = json.RawMessage(`{"OODUnusual": 1}`) // and its OOD split
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	require.NoError(t, err)
	k, maxAction := cfg.Collect.History, cfg.Collect.MaxAction
	pairs, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, k)
	require.NoError(t, err)
	held, err := env.ExpertPairs(textworld.Test, 0, cfg.HeldOut, k)
	require.NoError(t, err)
	start := time.Now()
	ctx := context.Background()
	pi0, _, err := InitialPolicy(ctx, env.Vocab, cfg.Preset, AutoContext(env, pairs, maxAction), pairs, cfg.InitShare, cfg.Choice, cfg.Init, cfg.Seed)
	require.NoError(t, err)
	il, _, err := TrainIL(ctx, pi0, env.Vocab, pairs, cfg.IL)
	require.NoError(t, err)
	t.Logf("π_θ0 and IL on %d pairs of %d games: %v", len(pairs), cfg.Games, time.Since(start).Round(time.Second))

	var b strings.Builder
	b.WriteString("| decoder | ID success | OOD success | next-action acc. | malformed steps (ID) | well-formed but inapplicable (ID) | repeated failures / ID episode |\n|---|---|---|---|---|---|---|\n")
	res := map[Decoding][2]Online{}
	acc := map[Decoding]float64{}
	for _, d := range []Decoding{DecodeFree, DecodeGrammar, DecodeTrie} {
		t0 := time.Now()
		id, err := EvaluateOnline(il, env, d, textworld.Test, cfg.Episodes, k, maxAction)
		require.NoError(t, err)
		ood, err := EvaluateOnline(il, env, d, textworld.TestOOD, cfg.OODEpisodes, k, maxAction)
		require.NoError(t, err)
		acc[d], err = NextActionAccuracy(il, env, d, held, maxAction)
		require.NoError(t, err)
		res[d] = [2]Online{id, ood}
		fmt.Fprintf(&b, "| %s | %.0f %% | %.0f %% | %.3f | %.0f %% | %.0f %% | %.1f |\n", d, 100*id.Success, 100*ood.Success, acc[d],
			100*id.Malformed, 100*(id.Inapplicable-id.Malformed), id.RepeatedFailures)
		t.Logf("%s: evaluated in %v", d, time.Since(t0).Round(time.Second))
	}
	t.Logf("IL, seed %d, %d ID and %d OOD games, %d held-out states:\n%s", cfg.Seed, cfg.Episodes, cfg.OODEpisodes, len(held), b.String())

	trie, grammar := res[DecodeTrie][0], res[DecodeGrammar][0]
	assert.Zero(t, trie.Malformed, "the trie writes only listed commands")
	assert.Zero(t, trie.Inapplicable)
	assert.Zero(t, grammar.Malformed, "the grammar writes only commands")
	// A free greedy action that is the expert's is, token by token, the
	// best of all tokens, so also the best of the allowed ones: masking
	// cannot lose it.
	assert.GreaterOrEqual(t, acc[DecodeGrammar], acc[DecodeFree])
	assert.GreaterOrEqual(t, acc[DecodeTrie], acc[DecodeFree])
}
