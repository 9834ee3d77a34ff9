//go:build long

package act

import (
	"context"
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
	env := mustEnv(t)
	train, pairs := learnableChoices(t, env, 256, 1)
	test, _ := learnableChoices(t, env, 64, 2)
	m := tinyModel(t, env.Vocab.Size(), 64)
	sft := rl.DefaultSFTConfig()
	sft.Epochs, sft.Optim.LR = 20, 3e-3
	pi0, _, err := TrainSFT(context.Background(), m, FormatData(env.Vocab, ChoiceSlot, pairs, rand.New(rand.NewPCG(3, 3))), sft)
	require.NoError(t, err)
	before, _, err := ChoiceAccuracy(pi0, env.Vocab, ChoiceSlot, test)
	require.NoError(t, err)
	assert.Less(t, before, 0.6, "π_θ0 does not judge")
	stage := DefaultGRPOStage()
	stage.Updates = 60
	stage.GRPO.Policy.Optim.LR = 1e-3
	stage.GRPO.Rollout.Workers = 1
	act, ms, err := TrainACT(context.Background(), pi0, env, ChoiceSlot, train, stage)
	require.NoError(t, err)
	after, _, err := ChoiceAccuracy(act, env.Vocab, ChoiceSlot, test)
	require.NoError(t, err)
	first, last := ms[0].Success, 0.0
	for _, mt := range ms[len(ms)-5:] {
		last += mt.Success / 5
	}
	t.Logf("held-out choice accuracy %.2f → %.2f, sampled %.2f → %.2f", before, after, first, last)
	assert.Greater(t, after, 0.9)
	assert.Greater(t, last, first+0.2)
}

// TestRLLearnsALearnableNextAction: on three short states, each with its
// own expert command among four listed, GRPO with reward 1 for the
// expert's action lifts a policy that knows the commands but not which
// state wants which from chance (1/3) towards the expert; decoded free (the
// setting the learnability was first shown in) and under the trie (the
// rollouts and the GRPO ratio renormalised over the listed commands).
func TestRLLearnsALearnableNextAction(t *testing.T) {
	for _, d := range []Decoding{DecodeFree, DecodeTrie} {
		t.Run(d.String(), func(t *testing.T) { rlLearnsALearnableNextAction(t, d) })
	}
}

func rlLearnsALearnableNextAction(t *testing.T, d Decoding) {
	env := mustEnv(t)
	v := env.Vocab
	cmds := []string{"go to fridge 1", "go to cabinet 2", "open drawer 1", "look"}
	var adm [][]int32
	for _, c := range cmds {
		adm = append(adm, words(v, c))
	}
	var pairs []textworld.Pair
	for i, obs := range []string{"you see a fridge 1 .", "you see a cabinet 2 .", "you see a drawer 1 ."} {
		s := textworld.State{Goal: words(v, "put a apple in fridge ."), Obs: words(v, obs), Admissible: adm}
		for range 20 {
			pairs = append(pairs, textworld.Pair{State: s, Expert: adm[i]})
		}
	}
	// π_θ0: a short SFT on every state's commands alike, so it knows the
	// grammar but not which command goes with which state.
	var warm []textworld.Pair
	for i := range pairs[:20] {
		warm = append(warm, textworld.Pair{State: pairs[20*(i%3)].State, Expert: adm[i%3]})
		warm[i].State.Obs = words(v, "you see nothing .")
	}
	sft := rl.DefaultSFTConfig()
	sft.Epochs, sft.Optim.LR = 40, 3e-3
	pi0, _, err := TrainSFT(context.Background(), tinyModel(t, v.Size(), 64), ILData(v, warm), sft)
	require.NoError(t, err)
	stage := DefaultGRPOStage()
	stage.Updates = 150
	stage.GRPO.Policy.Optim.LR = 3e-4
	stage.GRPO.Rollout.Workers = 1
	m, ms, err := TrainRL(context.Background(), pi0, env, d, pairs, 8, stage)
	require.NoError(t, err)
	first, last := (ms[0].Success+ms[1].Success)/2, (ms[len(ms)-1].Success+ms[len(ms)-2].Success)/2
	acc, err := NextActionAccuracy(m, env, d, pairs, 8)
	require.NoError(t, err)
	t.Logf("sampled success %.2f → %.2f, greedy accuracy %.2f (chance 1/3)", first, last, acc)
	assert.Greater(t, last, first+0.2)
	assert.Greater(t, acc, 0.5)
}
