package tasks

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVocab(t *testing.T) {
	v := NewVocab([]string{"yes", "no"}, Numbers(3))
	assert.Equal(t, 8, v.Size())
	assert.Equal(t, "<eot>", v.Word(EOT))
	assert.Equal(t, []Token{3, 6}, v.Encode("yes", "1"))
	assert.Equal(t, "yes <?99> <?-1>", v.Decode([]Token{3, 99, -1}))
	_, ok := v.Lookup("maybe")
	assert.False(t, ok)
	assert.Panics(t, func() { NewVocab([]string{"a", "a"}) })
	assert.Panics(t, func() { v.ID("maybe") })
	assert.Equal(t, []string{"m0", "m1"}, Prefixed("m", 2))
}

func TestSplitsAreDisjoint(t *testing.T) {
	trainLast, err := InstanceSeed(Train, MaxInstances-1)
	require.NoError(t, err)
	testFirst, err := InstanceSeed(Test, 0)
	require.NoError(t, err)
	assert.Less(t, trainLast, testFirst)
	_, err = InstanceSeed(Train, -1)
	assert.Error(t, err)
	_, err = InstanceSeed(Test, MaxInstances)
	assert.Error(t, err)
	testLast, err := InstanceSeed(Test, MaxInstances-1)
	require.NoError(t, err)
	valFirst, err := InstanceSeed(Val, 0)
	require.NoError(t, err)
	valLast, err := InstanceSeed(Val, MaxInstances-1)
	require.NoError(t, err)
	assert.Less(t, testLast, valFirst)
	assert.Less(t, valFirst, valLast, "no wrap-around in uint64")
	_, err = InstanceSeed(Val, MaxInstances)
	assert.Error(t, err)
	_, err = InstanceSeed(Split(3), 0)
	assert.Error(t, err)

	a, err := InstanceRNG(5, Train, 3, 0)
	require.NoError(t, err)
	b, err := InstanceRNG(5, Train, 3, 0)
	require.NoError(t, err)
	c, err := InstanceRNG(5, Test, 3, 0)
	require.NoError(t, err)
	d, err := InstanceRNG(5, Val, 3, 0)
	require.NoError(t, err)
	x := a.Uint64()
	assert.Equal(t, x, b.Uint64())
	assert.NotEqual(t, x, c.Uint64())
	assert.NotEqual(t, x, d.Uint64())
}

func TestSplitJSON(t *testing.T) {
	b, err := json.Marshal(struct{ S Split }{Test})
	require.NoError(t, err)
	assert.JSONEq(t, `{"S":"test"}`, string(b))
	var v struct{ S Split }
	require.NoError(t, json.Unmarshal([]byte(`{"S":"train"}`), &v))
	assert.Equal(t, Train, v.S)
	require.NoError(t, json.Unmarshal([]byte(`{"S":"val"}`), &v))
	assert.Equal(t, Val, v.S)
	b, err = json.Marshal(struct{ S Split }{Val})
	require.NoError(t, err)
	assert.JSONEq(t, `{"S":"val"}`, string(b))
	_, err = json.Marshal(struct{ S Split }{Split(3)})
	assert.Error(t, err)
	assert.Error(t, json.Unmarshal([]byte(`{"S":"dev"}`), &v))
	assert.Error(t, json.Unmarshal([]byte(`{"S":1}`), &v))
}

func TestBelief(t *testing.T) {
	b := Uniform(4)
	// Likelihood 1 for hypotheses 0 and 2, 0 otherwise: posterior 1/2, 1/2.
	nb, err := b.Update(func(h int) float64 { return float64(1 - h%2) })
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0.5, 0, 0.5, 0}, []float64(nb), 1e-12)
	assert.InDeltaSlice(t, []float64{0.25, 0.25, 0.25, 0.25}, []float64(b), 1e-12)
	_, unique := nb.Argmax()
	assert.False(t, unique)
	top, unique := Belief{0.1, 0.7, 0.2}.Argmax()
	assert.Equal(t, 1, top)
	assert.True(t, unique)
	_, err = b.Update(func(int) float64 { return 0 })
	assert.Error(t, err, "every hypothesis ruled out")
	assert.Error(t, Belief{math.NaN(), 1}.Normalize())
}

// coin is a minimal task used to test Play and Summarize: the hidden state is
// a bit; one AS turn may "ask" (reveals it) or "skip"; the final BT turn
// answers 0 or 1.
type coinEpisode struct {
	bit   int
	asked bool
	steps []Step
	done  bool
	ans   int
}

func (e *coinEpisode) Prompt() []Token { return []Token{BOS} }
func (e *coinEpisode) Next() Turn {
	if len(e.steps) == 0 {
		return Turn{Kind: AS, MaxTokens: 2}
	}
	return Turn{Kind: BT, Final: true, MaxTokens: 2}
}
func (e *coinEpisode) Step(a []Token) ([]Token, Step, error) {
	if e.done {
		return nil, Step{}, fmt.Errorf("episode is over")
	}
	s := Step{Turn: len(e.steps), Kind: e.Next().Kind, TruthMass: math.NaN()}
	if s.Kind == AS {
		e.asked = len(a) == 1 && a[0] == 3
		s.Z = -1
		if e.asked {
			s.Z = 1
		}
	} else {
		s.Final = true
		e.ans = -1
		if len(a) == 1 {
			e.ans = int(a[0]) - 4
		}
		e.done = true
	}
	e.steps = append(e.steps, s)
	return nil, s, nil
}
func (e *coinEpisode) Done() bool    { return e.done }
func (e *coinEpisode) Steps() []Step { return e.steps }
func (e *coinEpisode) Measures() Measures {
	m := Measures{Success: e.ans == e.bit, ASProxy: 0, BTProxy: math.NaN(), Turns: len(e.steps)}
	if e.asked {
		m.ASProxy = 1
	}
	if m.Success {
		m.Reward = 1
	}
	return m
}

type coinPolicy struct{ ask bool }

func (p coinPolicy) Name() string { return "coin" }
func (p coinPolicy) Act(ep Episode, rng *rand.Rand) ([]Token, error) {
	if ep.Next().Kind == AS {
		if p.ask {
			return []Token{3}, nil
		}
		return []Token{9}, nil
	}
	if e, ok := ep.(*coinEpisode); ok && e.asked {
		return []Token{Token(4 + e.bit)}, nil
	}
	return []Token{Token(4 + rng.IntN(2))}, nil
}

func TestPlayAndSummarize(t *testing.T) {
	var ms []Measures
	for i := range 200 {
		m, err := Play(&coinEpisode{bit: i % 2}, coinPolicy{ask: true}, rand.New(rand.NewPCG(1, uint64(i))), 5)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	s := Summarize(ms)
	assert.Equal(t, 1.0, s.Success)
	assert.Equal(t, 1.0, s.ASProxy)
	assert.True(t, math.IsNaN(s.BTProxy), "NaN-only measures average to NaN")
	assert.Equal(t, 2.0, s.Turns)

	ms = ms[:0]
	for i := range 400 {
		m, err := Play(&coinEpisode{bit: i % 2}, coinPolicy{ask: false}, rand.New(rand.NewPCG(1, uint64(i))), 5)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	s = Summarize(ms)
	assert.InDelta(t, 0.5, s.Success, 0.1, "guessing a hidden bit")
	assert.Equal(t, 0.0, s.ASProxy)

	// A simulator that never ends is caught by the turn bound.
	_, err := Play(&neverEnds{}, coinPolicy{}, rand.New(rand.NewPCG(1, 1)), 10)
	assert.ErrorContains(t, err, "still running")
}

type neverEnds struct{ coinEpisode }

func (e *neverEnds) Next() Turn { return Turn{Kind: AS, MaxTokens: 1} }
func (e *neverEnds) Step(a []Token) ([]Token, Step, error) {
	return nil, Step{Kind: AS}, nil
}
func (e *neverEnds) Done() bool { return false }

func TestRegistryAndConfig(t *testing.T) {
	Register("coin-test", func(config json.RawMessage) (Task, error) {
		cfg := struct{ Rounds int }{Rounds: 3}
		if err := DecodeConfig(config, &cfg); err != nil {
			return nil, err
		}
		if cfg.Rounds < 1 {
			return nil, fmt.Errorf("rounds must be ≥ 1, got %d", cfg.Rounds)
		}
		return nil, nil
	})
	assert.Contains(t, Names(), "coin-test")
	_, err := New("coin-test", nil)
	assert.NoError(t, err)
	_, err = New("coin-test", json.RawMessage(`{"Rounds": 0}`))
	assert.ErrorContains(t, err, "rounds must be")
	_, err = New("coin-test", json.RawMessage(`{"Roundz": 2}`))
	assert.ErrorContains(t, err, "unknown field")
	_, err = New("coin-test", json.RawMessage(`{"Rounds": 2} {}`))
	assert.ErrorContains(t, err, "trailing")
	_, err = New("nope", nil)
	assert.ErrorContains(t, err, "unknown task")
	assert.Panics(t, func() { Register("coin-test", nil) })
}

func TestPolicySpecValidate(t *testing.T) {
	for _, ok := range []PolicySpec{{Kind: "random"}, {Kind: "strong"}, {Kind: "constant"}, {Kind: "weak", QAS: 0, QBT: 1}} {
		assert.NoError(t, ok.Validate(), "%+v", ok)
	}
	for _, bad := range []PolicySpec{{Kind: "expert"}, {Kind: ""}, {Kind: "weak", QAS: -0.1}, {Kind: "weak", QBT: 1.5}, {Kind: "weak", QAS: math.NaN()}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
}
