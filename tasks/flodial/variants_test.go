package flodial

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// With Echo, every reply restates the asked column: the answer, the K cells
// in fault order (K BAD after a malformed query), then the header.
func TestEchoRestatesTheColumn(t *testing.T) {
	cfg := EasyConfig()
	cfg.Echo = true
	task, err := New("echo", cfg)
	require.NoError(t, err)
	inst, err := task.instance(tasks.Test, 3)
	require.NoError(t, err)
	ep, err := task.NewEpisode(tasks.Test, 3)
	require.NoError(t, err)
	k := cfg.Faults

	obs, s, err := ep.Step([]tasks.Token{task.q0 + 4})
	require.NoError(t, err)
	require.False(t, s.Malformed)
	require.Len(t, obs, 2+k)
	assert.Equal(t, task.reply[inst.cells[4][inst.truth]], obs[0])
	for f := range k {
		assert.Equal(t, task.reply[inst.cells[4][f]], obs[1+f], "cell of fault %d", f)
	}
	assert.Equal(t, task.guess, obs[k+1])

	_, _, err = ep.Step(task.levels.Encode(task.levels.OneHot(k, 0)))
	require.NoError(t, err)
	obs, s, err = ep.Step([]tasks.Token{tasks.EOT, tasks.EOT})
	require.NoError(t, err)
	require.True(t, s.Malformed)
	require.Len(t, obs, 2+k)
	for _, tok := range obs[:k+1] {
		assert.Equal(t, task.reply[bad], tok)
	}

	// The echo changes observations only: the same moves judge the same.
	plain, err := New("plain", EasyConfig())
	require.NoError(t, err)
	for _, spec := range []tasks.PolicySpec{{Kind: "strong"}, {Kind: "random"}, {Kind: "locked", QAS: 0.3, QBT: 0.3}} {
		a, err := task.Scripted(spec)
		require.NoError(t, err)
		b, err := plain.Scripted(spec)
		require.NoError(t, err)
		sa, err := tasks.Evaluate(task, a, tasks.Test, 100, 7, 2*cfg.Rounds)
		require.NoError(t, err)
		sb, err := tasks.Evaluate(plain, b, tasks.Test, 100, 7, 2*cfg.Rounds)
		require.NoError(t, err)
		assert.Equal(t, sb, sa, spec.Kind)
	}
}

// A style puts its token after BOS; both styles share one vocabulary, and
// a style changes nothing else.
func TestStyleToken(t *testing.T) {
	var vocabs [][]string
	for _, style := range []string{"careful", "hasty"} {
		task, err := tasks.New("flodial-easy", json.RawMessage(`{"Echo": true, "Style": "`+style+`"}`))
		require.NoError(t, err)
		ft := task.(*Task)
		ep, err := task.NewEpisode(tasks.Train, 0)
		require.NoError(t, err)
		p := ep.Prompt()
		require.Len(t, p, ft.promptLen())
		assert.Equal(t, tasks.BOS, p[0])
		assert.Equal(t, "<"+style+">", task.Vocab().Word(p[1]))
		vocabs = append(vocabs, task.Vocab().Words())
	}
	assert.Equal(t, vocabs[0], vocabs[1])
	plain, err := tasks.New("flodial-easy", nil)
	require.NoError(t, err)
	assert.Equal(t, plain.Vocab().Size()+2, len(vocabs[0]))
	_, err = tasks.New("flodial-easy", json.RawMessage(`{"Style": "sloppy"}`))
	assert.Error(t, err)
}

// The locked demonstrator is well formed and confidently uninformed: its
// questions are less informative than random ones, its belief never moves
// (C_BT ≈ 0), and its final answer is a constant (success ≈ 1/K). With both
// knobs at 1 it is the strong policy's behaviour.
func TestLockedPolicy(t *testing.T) {
	cfg := EasyConfig()
	cfg.Critiques = "consistent"
	task, err := New("locked", cfg)
	require.NoError(t, err)
	eval := func(spec tasks.PolicySpec) tasks.Summary {
		pol, err := task.Scripted(spec)
		require.NoError(t, err)
		s, err := tasks.Evaluate(task, pol, tasks.Test, 500, 3, 2*cfg.Rounds)
		require.NoError(t, err)
		assert.Zero(t, s.Malformed, pol.Name())
		return s
	}
	random := eval(tasks.PolicySpec{Kind: "random"})
	locked := eval(tasks.PolicySpec{Kind: "locked"})
	leaky := eval(tasks.PolicySpec{Kind: "locked", QAS: 0.03, QBT: 0.03})
	skilled := eval(tasks.PolicySpec{Kind: "locked", QAS: 1, QBT: 1})
	t.Logf("random %+v\nlocked %+v\nleaky %+v\nskilled %+v", random, locked, leaky, skilled)
	_, best, err := task.BestConstant(tasks.Test, 500)
	require.NoError(t, err)

	assert.Less(t, locked.CBT, 0.05, "only the final answer's top moves Ψ")
	assert.Less(t, locked.ASProxy, 0.06, "a splitting question only when no other is left")
	assert.Less(t, locked.IAS, random.IAS)
	assert.LessOrEqual(t, locked.Success, best)
	assert.Less(t, leaky.ASProxy, random.ASProxy)
	assert.Less(t, leaky.IAS, random.IAS)
	assert.Less(t, leaky.Success, best+0.03)
	assert.Greater(t, skilled.Success, 0.9)

	// Deterministic beliefs: the same episode gives the same tokens.
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "locked"})
	require.NoError(t, err)
	ep, err := task.NewEpisode(tasks.Test, 0)
	require.NoError(t, err)
	var beliefs [][]tasks.Token
	for !ep.Done() {
		a, err := pol.Act(ep, rand.New(rand.NewPCG(uint64(len(beliefs)), 9)))
		require.NoError(t, err)
		if !ep.(*episode).QueryTurn() {
			beliefs = append(beliefs, a)
		}
		_, _, err = ep.Step(a)
		require.NoError(t, err)
	}
	flat := task.levels.Encode([]int{3, 3, 3, 3, 3, 3})
	for _, b := range beliefs[:len(beliefs)-1] {
		assert.Equal(t, flat, b)
	}
	assert.Equal(t, task.levels.Encode([]int{3, 2, 2, 2, 2, 2}), beliefs[len(beliefs)-1])
}
