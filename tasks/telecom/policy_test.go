package telecom

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

func TestPolicyOrdering(t *testing.T) {
	for _, crit := range []string{"spec", "consistent"} {
		for _, s := range []string{"solo", "dual"} {
			cfg := DefaultConfig()
			cfg.Critiques = crit
			task, err := New(s, cfg)
			require.NoError(t, err)
			eval := func(spec tasks.PolicySpec) tasks.Summary {
				pol, err := task.Scripted(spec)
				require.NoError(t, err)
				sum, err := tasks.Evaluate(task, pol, tasks.Test, 300, 1, maxTurnsLimit+1)
				require.NoError(t, err)
				return sum
			}
			strong := eval(tasks.PolicySpec{Kind: "strong"})
			random := eval(tasks.PolicySpec{Kind: "random"})
			weak := eval(tasks.PolicySpec{Kind: "weak", QAS: 0.1, QBT: 0.1})
			name := crit + " " + s
			assert.GreaterOrEqual(t, strong.Success, 0.99, name)
			assert.LessOrEqual(t, random.Success, 0.05, name)
			assert.LessOrEqual(t, weak.Success, 0.08, name)
			assert.Greater(t, strong.ASProxy, weak.ASProxy+0.3, "%s: weak-low sits low on AS", name)
			assert.Greater(t, strong.IAS, weak.IAS+0.3, name)
			assert.Greater(t, strong.Evidence, 0.99, name)
			assert.Less(t, weak.Evidence, 0.05, name)
			assert.Zero(t, strong.Extra[ExtraToolErrors], name)
			if s == "dual" {
				assert.Greater(t, strong.Extra[ExtraMessageTurns], 1.0, "%s: the strong agent guides the user", name)
				assert.InDelta(t, 0.45, strong.Extra[ExtraToolTurnRatio], 0.1, name)
			}
		}
	}
}

func TestBestConstant(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		task, err := New(s, DefaultConfig())
		require.NoError(t, err)
		ans, succ, err := task.BestConstant(tasks.Test, 1000)
		require.NoError(t, err)
		assert.LessOrEqual(t, succ, 0.12, "%s: best constant %q", s, ans)
		assert.Greater(t, succ, 0.03, "a single fault's repair alone scores about 1/18")

		// The constant policy, played through real episodes, scores what the
		// search says for its sequence on the same instances.
		pol, err := task.Scripted(tasks.PolicySpec{Kind: "constant"})
		require.NoError(t, err)
		seq := pol.(constantPolicy).seq
		wins := 0
		for i := 0; i < 400; i++ {
			c, _, err := task.instance(tasks.Test, i)
			require.NoError(t, err)
			if constantSucceeds(c, seq) {
				wins++
			}
		}
		sum, err := tasks.Evaluate(task, pol, tasks.Test, 400, 1, 100)
		require.NoError(t, err)
		assert.InDelta(t, float64(wins)/400, sum.Success, 1e-12, s)

		// No other fixed sequence beats the searched best on the same
		// instances: every sequence of up to three writes (repeats and all
		// orders) then a close, by world simulation; and random longer
		// sequences with reads mixed in, played through real episodes.
		const n = 150
		seqBest, best := task.bestConstant(tasks.Test, n)
		assert.NotEmpty(t, seqBest)
		configs := make([]config, n)
		for i := range configs {
			configs[i], _, _ = task.instance(tasks.Test, i)
		}
		var writes []op
		for o := op(0); o < opDone; o++ {
			if o.write() {
				writes = append(writes, o)
			}
		}
		var grow func(prefix []op)
		grow = func(prefix []op) {
			for _, closing := range []op{opDone, opTransfer} {
				seq := append(append([]op(nil), prefix...), closing)
				wins := 0
				for _, c := range configs {
					if constantSucceeds(c, seq) {
						wins++
					}
				}
				assert.LessOrEqual(t, float64(wins)/n, best+1e-12, "%v", task.describe(seq))
			}
			if len(prefix) < 3 {
				for _, o := range writes {
					grow(append(prefix, o))
				}
			}
		}
		grow(nil)
		rng := rand.New(rand.NewPCG(2, 2))
		for k := 0; k < 40; k++ {
			var seq []op
			for j := 1 + rng.IntN(12); j > 0; j-- {
				seq = append(seq, op(rng.IntN(int(opRestart)+1)))
			}
			seq = append(seq, opDone+op(rng.IntN(2)))
			sum, err := tasks.Evaluate(task, constantPolicy{seq: seq}, tasks.Test, n, 1, 100)
			require.NoError(t, err)
			assert.LessOrEqual(t, sum.Success, best+1e-12, "%v", task.describe(seq))
		}
	}
	task, err := New("solo", DefaultConfig())
	require.NoError(t, err)
	_, _, err = task.BestConstant(tasks.Test, 0)
	assert.Error(t, err)
	_, _, err = task.BestConstant(tasks.Test, tasks.MaxInstances+1)
	assert.Error(t, err)

	// A turn limit too short for long sequences restricts the search.
	cfg := DefaultConfig()
	cfg.MaxTurns = 2
	short, err := New("dual", cfg)
	require.NoError(t, err)
	for _, seq := range constantCandidates(2) {
		assert.LessOrEqual(t, len(seq), 2)
	}
	_, _, err = short.BestConstant(tasks.Train, 50)
	assert.NoError(t, err)
}

func TestScriptedErrors(t *testing.T) {
	task, err := New("dual", DefaultConfig())
	require.NoError(t, err)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "oracle"})
	assert.Error(t, err)
	_, err = task.Scripted(tasks.PolicySpec{Kind: "weak", QAS: 1.5})
	assert.Error(t, err)
	for _, kind := range []string{"random", "weak", "strong", "constant"} {
		pol, err := task.Scripted(tasks.PolicySpec{Kind: kind, QAS: 0.5})
		require.NoError(t, err)
		assert.NotEmpty(t, pol.Name())
		_, err = pol.Act(foreignEpisode{}, rand.New(rand.NewPCG(1, 1)))
		assert.Error(t, err, "%s on another task's episode", kind)
	}
}

type foreignEpisode struct{ tasks.Episode }
