package act

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/rl"
	"arew/tasks/textworld"
)

// learnableChoices is a choice task a tiny model can learn: short states,
// the expert's action one of a few commands, the alternative always the
// inapplicable "take apple 9 from fridge 1", in random order. Picking the
// expert means finding which slot holds the other command.
func learnableChoices(t *testing.T, env *Env, n int, seed uint64) ([]CriticExample, []textworld.Pair) {
	t.Helper()
	v := env.Vocab
	rng := rand.New(rand.NewPCG(seed, 1))
	experts := []string{"go to fridge 1", "open fridge 1", "look", "inventory", "go to cabinet 2"}
	alt := words(v, "take apple 9 from fridge 1")
	var data []CriticExample
	var pairs []textworld.Pair
	for range n {
		e := words(v, experts[rng.IntN(len(experts))])
		s := textworld.State{Goal: words(v, "put a apple in fridge ."), Obs: words(v, "you see a fridge 1 ."),
			Admissible: [][]int32{e, words(v, "examine fridge 1")}}
		data = append(data, CriticExample{State: s, Expert: e, Alt: alt, ExpertFirst: rng.IntN(2) == 0})
		pairs = append(pairs, textworld.Pair{State: s, Expert: e})
	}
	return data, pairs
}

// TestACTLearnsALearnableChoice: from a model that answers in the format
// at chance, GRPO on the choice task raises both the sampled accuracy and
// the greedy held-out accuracy — the reward reaches the right slot.
func TestACTLearnsALearnableChoice(t *testing.T) {
	if testing.Short() {
		t.Skip("GRPO on a tiny model")
	}
	env := mustEnv(t)
	train, pairs := learnableChoices(t, env, 256, 1)
	test, _ := learnableChoices(t, env, 64, 2)
	m := tinyModel(t, env.Vocab.Size(), 64)
	sft := rl.DefaultSFTConfig()
	sft.Epochs = 3
	pi0, _, err := TrainSFT(m, FormatData(env.Vocab, pairs, rand.New(rand.NewPCG(3, 3))), sft)
	require.NoError(t, err)
	before, bad, err := ChoiceAccuracy(pi0, env.Vocab, test)
	require.NoError(t, err)
	assert.Less(t, bad, 0.1, "π_θ0 answers in the format")
	stage := DefaultGRPOStage()
	stage.Updates = 40
	stage.GRPO.Policy.Optim.LR = 1e-3
	stage.GRPO.Rollout.Workers = 1
	act, ms, err := TrainACT(pi0, env, train, stage)
	require.NoError(t, err)
	after, _, err := ChoiceAccuracy(act, env.Vocab, test)
	require.NoError(t, err)
	first, last := ms[0].Success, 0.0
	for _, mt := range ms[len(ms)-5:] {
		last += mt.Success / 5
	}
	t.Logf("held-out choice accuracy %.2f → %.2f, sampled %.2f → %.2f", before, after, first, last)
	assert.Greater(t, after, 0.9)
	assert.Greater(t, last, first+0.2)
}
