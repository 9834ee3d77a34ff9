//go:build long

package act

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/model"
	"arew/rl"
	"arew/tasks/textworld"
)

// TestCriticFormatsOnALFWorld makes docs/act.md §12's table: the critic in
// the action channel against the slot answer, on act-alfworld's sizing
// before the full splits (tiny preset, 200 ALFWorld games, π_θ0 as Run
// trains it for the format,
// D_critic sampled under the trie, the ACT stage of tableRun with its
// updates), on one seed. For each arm it measures, before (π_θ0) and
// after the ACT stage, the greedy held-out choice accuracy (in the arm's
// format) and next-action accuracy on the 20 held-out games' expert
// states (trie and free), and the stage's sampled accuracy and KL:
//
//	GOMAXPROCS=1 go test -tags long -run TestCriticFormatsOnALFWorld -v -timeout 90m ./rl/act
//
// ACT_CRITIC_ARMS (default "action,slot"; also "action-kl0", "slot-kl0":
// the stage without its KL anchor), ACT_CRITIC_SEED (default 11) and
// ACT_CRITIC_UPDATES (default 120, act-alfworld's) change the run.
func TestCriticFormatsOnALFWorld(t *testing.T) {
	arms := strings.Split(envOr("ACT_CRITIC_ARMS", "action,slot"), ",")
	seed, err := strconv.ParseUint(envOr("ACT_CRITIC_SEED", "11"), 10, 64)
	require.NoError(t, err, "ACT_CRITIC_SEED")
	updates, err := strconv.Atoi(envOr("ACT_CRITIC_UPDATES", "120"))
	require.NoError(t, err, "ACT_CRITIC_UPDATES")
	base := seeded(tableRun("alfworld", updates), seed, "")
	base.Games = 200 // the sizing docs/act.md §12 was measured at
	env, err := NewEnv(base.Env, base.EnvConfig)
	require.NoError(t, err)
	k, maxAction := base.Collect.History, base.Collect.MaxAction
	pairs, err := env.ExpertPairs(textworld.Train, 0, base.Games, k)
	require.NoError(t, err)
	held, err := env.ExpertPairs(textworld.Test, 0, base.HeldOut, k)
	require.NoError(t, err)
	contextLen := AutoContext(env, pairs, maxAction)

	var b strings.Builder
	b.WriteString("| arm | KL coef | D_critic (held out) | choice acc. π_θ0 → ACT | next action (trie) π_θ0 → ACT | next action (free) π_θ0 → ACT | sampled choice acc. first → last tenth | KL to start, last tenth | ACT stage s |\n|---|---|---|---|---|---|---|---|---|\n")
	type start struct {
		pi0            *model.Model
		data, heldData []CriticExample
	}
	starts := map[ChoiceFormat]start{}
	for _, arm := range arms {
		cfg := base
		name, noKL := strings.CutSuffix(strings.TrimSpace(arm), "-kl0")
		cfg.Choice = ChoiceFormat(name)
		require.NoError(t, cfg.Choice.Validate(), "ACT_CRITIC_ARMS")
		if noKL {
			cfg.ACT.GRPO.Policy.KLCoef = 0
		}
		st, ok := starts[cfg.Choice]
		if !ok {
			t0 := time.Now()
			st.pi0, _, err = InitialPolicy(context.Background(), env.Vocab, cfg.Preset, contextLen, pairs, cfg.InitShare, cfg.Choice, cfg.Init, cfg.Seed)
			require.NoError(t, err)
			st.data, _, err = CriticData(st.pi0, env, DecodeTrie, textworld.Train, 0, cfg.Games, cfg.Collect)
			require.NoError(t, err)
			st.heldData, _, err = CriticData(st.pi0, env, DecodeTrie, textworld.Test, 0, cfg.HeldOut, cfg.Collect)
			require.NoError(t, err)
			st.data, _ = FitCritic(env, cfg.Choice, st.data, contextLen)
			st.heldData, _ = FitCritic(env, cfg.Choice, st.heldData, contextLen)
			starts[cfg.Choice] = st
			t.Logf("%s: π_θ0 and D_critic in %v", cfg.Choice, time.Since(t0).Round(time.Second))
		}
		measure := func(m *model.Model) (choice, trie, free float64) {
			choice, _, err := ChoiceAccuracy(m, env.Vocab, cfg.Choice, st.heldData)
			require.NoError(t, err)
			trie, err = NextActionAccuracy(m, env, DecodeTrie, held, maxAction)
			require.NoError(t, err)
			free, err = NextActionAccuracy(m, env, DecodeFree, held, maxAction)
			require.NoError(t, err)
			return choice, trie, free
		}
		c0, t0, f0 := measure(st.pi0)
		start := time.Now()
		act, ms, err := TrainACT(context.Background(), st.pi0, env, cfg.Choice, st.data, cfg.ACT)
		require.NoError(t, err)
		secs := time.Since(start).Seconds()
		c1, t1, f1 := measure(act)
		acc, kl := make([]float64, len(ms)), make([]float64, len(ms))
		for i, mt := range ms {
			acc[i], kl[i] = mt.Success, mt.RefKL
		}
		fmt.Fprintf(&b, "| %s | %g | %d (%d) | %.3f → %.3f | %.3f → %.3f | %.3f → %.3f | %.3f → %.3f | %.4f | %.0f |\n",
			arm, cfg.ACT.GRPO.Policy.KLCoef, len(st.data), len(st.heldData), c0, c1, t0, t1, f0, f1,
			tenth(acc, false), tenth(acc, true), tenth(kl, true), secs)
		t.Logf("%s done: ACT stage %.0f s", arm, secs)
		if cfg.Choice == ChoiceAction {
			assert.Zero(t, lastMalformed(ms), "the action channel's answers always parse")
		}
	}
	t.Logf("ALFWorld, seed %d, %d games (%d pairs), %d ACT updates of %d × %d, %d held-out states:\n%s",
		seed, base.Games, len(pairs), updates, base.ACT.GRPO.Prompts, base.ACT.GRPO.GroupSize, len(held), b.String())
}

// lastMalformed is the largest malformed share over the stage's updates.
func lastMalformed(ms []rl.Metrics) float64 {
	worst := 0.0
	for _, m := range ms {
		worst = math.Max(worst, m.Malformed)
	}
	return worst
}
