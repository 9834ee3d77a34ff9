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

	"arew/model"
	"arew/tasks/textworld"
)

// TestILAtTheFullSplits measures π_θ0 and IL of act-table1's cells at the
// environments' full training splits (issue 21, item 3), as Run trains
// them, on one seed: held-out next-action accuracy under the run's
// decoder, online success on the ID games and, on ALFWorld, on the OOD
// games three ways: the default split (a quarter of the games with
// unusual placements), every OOD game usual, every one unusual:
//
//	ACT_IL_ENVS=alfworld GOMAXPROCS=1 go test -tags long -run TestILAtTheFullSplits -v -timeout 120m ./rl/act
//
// It is a measurement, not a check, so it runs only when asked:
// ACT_IL_ENVS names the environments (any of alfworld, webshop, sciworld,
// comma-separated); unset, the test is skipped. ACT_IL_SEED (default 11)
// and ACT_IL_GAMES (default 0: the preset's training games) change the
// run.
func TestILAtTheFullSplits(t *testing.T) {
	envs := os.Getenv("ACT_IL_ENVS")
	if envs == "" {
		t.Skip("a measurement runner: set ACT_IL_ENVS (e.g. alfworld,webshop,sciworld) to run it")
	}
	seed, err := strconv.ParseUint(envOr("ACT_IL_SEED", "11"), 10, 64)
	require.NoError(t, err, "ACT_IL_SEED")
	games, err := strconv.Atoi(envOr("ACT_IL_GAMES", "0"))
	require.NoError(t, err, "ACT_IL_GAMES")
	for _, name := range strings.Split(envs, ",") {
		t.Run(name, func(t *testing.T) { ilAtTheFullSplit(t, strings.TrimSpace(name), seed, games) })
	}
}

func ilAtTheFullSplit(t *testing.T, name string, seed uint64, games int) {
	cfg := seeded(tableRun(name, 0), seed, "")
	if games > 0 {
		cfg.Games = games
	}
	env, err := NewEnv(cfg.Env, cfg.EnvConfig)
	require.NoError(t, err)
	k, maxAction := cfg.Collect.History, cfg.Collect.MaxAction
	pairs, err := env.ExpertPairs(textworld.Train, 0, cfg.Games, k)
	require.NoError(t, err)
	held, err := env.ExpertPairs(textworld.Test, 0, cfg.HeldOut, k)
	require.NoError(t, err)
	dec, err := ParseDecoding(cfg.Decoder)
	require.NoError(t, err)
	ctxLen := AutoContext(env, pairs, maxAction)
	t0 := time.Now()
	pi0, _, err := InitialPolicy(context.Background(), env.Vocab, cfg.Preset, ctxLen, pairs, cfg.InitShare, cfg.Choice, cfg.Init, cfg.Seed)
	require.NoError(t, err)
	pi0Secs := time.Since(t0).Seconds()
	t0 = time.Now()
	il, _, err := TrainIL(context.Background(), pi0, env.Vocab, pairs, cfg.IL)
	require.NoError(t, err)
	ilSecs := time.Since(t0).Seconds()

	var b strings.Builder
	fmt.Fprintf(&b, "%s, seed %d: %d games, %d expert pairs, %d held-out states; π_θ0 %.0f s, IL (%d epochs) %.0f s\n",
		name, seed, cfg.Games, len(pairs), len(held), pi0Secs, cfg.IL.Epochs, ilSecs)
	acc := map[string]float64{}
	for _, row := range []struct {
		name string
		m    *model.Model
	}{{RowPrompting, pi0}, {RowIL, il}} {
		a, err := NextActionAccuracy(row.m, env, dec, held, maxAction)
		require.NoError(t, err)
		acc[row.name] = a
		fmt.Fprintf(&b, "  %-9s next action %.3f", row.name, a)
		if cfg.Episodes > 0 {
			o, err := EvaluateOnline(row.m, env, dec, textworld.Test, cfg.Episodes, k, maxAction)
			require.NoError(t, err)
			fmt.Fprintf(&b, " | ID %.2f (%d games)", o.Success, cfg.Episodes)
		}
		for _, ood := range []struct{ label, config string }{{"OOD", ""}, {"OOD all usual", `{"OODUnusual": 0}`}, {"OOD all unusual", `{"OODUnusual": 1}`}} {
			if cfg.OODEpisodes == 0 {
				break
			}
			e := env
			if ood.config != "" {
				e, err = NewEnv(cfg.Env, json.RawMessage(ood.config))
				require.NoError(t, err)
			}
			o, err := EvaluateOnline(row.m, e, dec, textworld.TestOOD, cfg.OODEpisodes, k, maxAction)
			require.NoError(t, err)
			fmt.Fprintf(&b, " | %s %.2f", ood.label, o.Success)
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
	assert.Greater(t, acc[RowIL], acc[RowPrompting], "IL acts better than π_θ0")
}
