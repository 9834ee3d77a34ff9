package textworld

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// lineEnv is a toy Env: walk "step" n times to win; "wait" does nothing.
type lineEnv struct {
	v       *tasks.Vocab
	pos, n  int
	steps   int
	lastObs []string
}

func newLine(n int) *lineEnv {
	return &lineEnv{v: NewVocab([]string{"step", "wait", "at", "goal"}), n: n, lastObs: []string{"at", "0"}}
}

func (e *lineEnv) Vocab() *tasks.Vocab        { return e.v }
func (e *lineEnv) Goal() []tasks.Token        { return e.v.Encode("goal") }
func (e *lineEnv) Observation() []tasks.Token { return e.v.Encode(e.lastObs...) }
func (e *lineEnv) Admissible() [][]tasks.Token {
	return [][]tasks.Token{e.v.Encode("step"), e.v.Encode("wait")}
}
func (e *lineEnv) IsAdmissible(a []tasks.Token) bool { return Contains(e.Admissible(), a) }
func (e *lineEnv) Step(a []tasks.Token) ([]tasks.Token, error) {
	e.steps++
	if Equal(a, e.v.Encode("step")) {
		e.pos++
		e.lastObs = []string{"at", e.v.Word(e.v.ID("0") + tasks.Token(e.pos))}
	} else {
		e.lastObs = NothingHappens
	}
	return e.Observation(), nil
}
func (e *lineEnv) Done() bool    { return e.pos >= e.n || e.steps >= 10 }
func (e *lineEnv) Steps() int    { return e.steps }
func (e *lineEnv) MaxSteps() int { return 10 }
func (e *lineEnv) Success() bool { return e.pos >= e.n }
func (e *lineEnv) Reward() float64 {
	if e.Success() {
		return 1
	}
	return 0
}
func (e *lineEnv) Expert() []tasks.Token { return e.v.Encode("step") }
func (e *lineEnv) Clone() Env            { c := *e; return &c }

func TestStateTokens(t *testing.T) {
	e := newLine(3)
	v := e.v
	_, _ = e.Step(v.Encode("step"))
	s := Snapshot(e, []Turn{{Obs: v.Encode("at", "0"), Action: v.Encode("step")}}, History)
	assert.Equal(t, "<bos> <task> goal <obs> at 0 <act> step <obs> at 1 <adm> step <sep> wait <act>", v.Decode(s.Tokens(v)))
	past := []Turn{{Obs: v.Encode("0")}, {Obs: v.Encode("1")}, {Obs: v.Encode("2")}}
	assert.Len(t, Snapshot(e, past, 2).History, 2)
	assert.Equal(t, v.Encode("1"), Snapshot(e, past, 2).History[0].Obs)
	assert.Empty(t, Snapshot(e, past, -1).History)
}

func TestPlayAndMeasures(t *testing.T) {
	tr, err := Play(newLine(3), Expert{}, History, nil)
	require.NoError(t, err)
	assert.True(t, tr.Success)
	assert.Len(t, tr.Steps, 3)
	pairs, err := ExpertPairs(newLine(3), History)
	require.NoError(t, err)
	assert.Len(t, pairs, 3)
	v := newLine(1).v
	assert.Equal(t, 1.0, Accuracy(pairs, func(State) []tasks.Token { return v.Encode("step") }))
	assert.Equal(t, 0.0, Accuracy(pairs, func(State) []tasks.Token { return v.Encode("wait") }))
	assert.Equal(t, 0.0, Accuracy(nil, nil))

	waiter := scripted{func() []tasks.Token { return v.Encode("wait") }}
	tr, err = Play(newLine(3), waiter, History, nil)
	require.NoError(t, err)
	assert.False(t, tr.Success)
	assert.Equal(t, 9, tr.RepeatedFailures(v), "10 waits: each after the first repeats a failure")
	r, err := Evaluate(func(int) (Env, error) { return newLine(2), nil }, 4, waiter, History, nil)
	require.NoError(t, err)
	assert.Equal(t, Result{Policy: "scripted", Episodes: 4, MeanSteps: 10, Inapplicable: 1, RepeatedFailures: 9}, r)
	r, err = Evaluate(func(int) (Env, error) { return newLine(2), nil }, 50, RandomAdmissible{}, History, rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	assert.InDelta(t, 0.99, r.Success, 0.02)
}

type scripted struct{ f func() []tasks.Token }

func (scripted) Name() string                               { return "scripted" }
func (s scripted) Act(Env, State, *rand.Rand) []tasks.Token { return s.f() }

func TestVocabAndWords(t *testing.T) {
	v := NewVocab([]string{"on", "off", "on"}, []string{"1", "nothing"})
	assert.Equal(t, len(CoreWords())+3+2, v.Size(), "duplicates of the core and within groups are skipped")
	words, ok := ReadWords(v, v.Encode("on", "off"))
	assert.True(t, ok)
	assert.Equal(t, []string{"on", "off"}, words)
	for _, bad := range [][]tasks.Token{{tasks.EOT}, {-1}, {tasks.Token(v.Size())}, {tasks.Pad}} {
		_, ok := ReadWords(v, bad)
		assert.False(t, ok)
	}
	assert.Panics(t, func() { NewVocab([]string{"two words"}) })
	assert.True(t, Equal(nil, []tasks.Token{}))
	assert.False(t, Equal([]tasks.Token{1}, []tasks.Token{2}))
}

func TestSplitsAndSizes(t *testing.T) {
	seen := map[uint64]Split{}
	for _, s := range []Split{Train, Test, TestOOD, Val} {
		sp, err := ParseSplit(s.String())
		require.NoError(t, err)
		assert.Equal(t, s, sp)
		for i := 0; i < 200; i++ {
			rng, err := RNG(5, s, i, 1)
			require.NoError(t, err)
			x := rng.Uint64()
			_, dup := seen[x]
			assert.False(t, dup, "%v %d draws like another split", s, i)
			seen[x] = s
		}
	}
	_, err := ParseSplit("dev")
	assert.Error(t, err)
	_, err = RNG(5, Split(9), 0, 0)
	assert.Error(t, err)
	z := Sizes{Train: 3, Test: 2}
	require.NoError(t, z.Validate())
	assert.NoError(t, z.Check(Train, 2))
	assert.Error(t, z.Check(Train, 3))
	assert.Error(t, z.Check(Test, -1))
	assert.Error(t, z.Check(TestOOD, 0), "no OOD split")
	assert.Error(t, z.Check(Val, 0), "no validation split")
	assert.NoError(t, Sizes{Train: 3, Test: 2, Val: 1}.Check(Val, 0))
	assert.Error(t, Sizes{Train: 0, Test: 1}.Validate())
	assert.Error(t, Sizes{Train: 1, Test: 1, TestOOD: -1}.Validate())
	assert.Error(t, Sizes{Train: 1, Test: 1, Val: -1}.Validate())
}

func TestCheckRecovery(t *testing.T) {
	r, err := CheckRecovery(newLine(3), 2, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	assert.Equal(t, Recovery{Tested: true, Success: true}, r)
	r, err = CheckRecovery(newLine(3), 20, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	assert.False(t, r.Tested, "the prefix used up the game")
}

func TestCriticFormats(t *testing.T) {
	e := newLine(3)
	v := e.v
	s := Snapshot(e, nil, History)
	p := CriticPrompt(v, s, v.Encode("wait"), v.Encode("step"))
	assert.Equal(t, "<bos> action 1 : wait <sep> action 2 : step <task> goal <obs> at 0 <adm> step <sep> wait <choose>", v.Decode(p))
	pa := CriticActionPrompt(v, s, v.Encode("wait"), v.Encode("step"))
	assert.Equal(t, "<bos> action 1 : wait <sep> action 2 : step <task> goal <obs> at 0 <adm> step <sep> wait <act>", v.Decode(pa))
	state := s.Tokens(v)
	assert.Equal(t, state[1:], pa[len(pa)-len(state)+1:], "after the candidates, the actor's state as it is shown to act")
	for _, tc := range []struct {
		answer []tasks.Token
		want   int
	}{
		{v.Encode("1"), 1}, {v.Encode("2"), 2}, {v.Encode("3"), 0}, {nil, 0}, {v.Encode("1", "2"), 0}, {[]tasks.Token{-4}, 0},
	} {
		got, err := ParseChoice(v, tc.answer)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.want == 0, err != nil)
	}
	x, y := v.Encode("wait", "1"), v.Encode("wait")
	for _, tc := range []struct {
		answer []tasks.Token
		want   int
	}{
		{x, 1}, {y, 2}, {v.Encode("wait", "2"), 0}, {nil, 0}, {v.Encode("step"), 0}, {append(append([]tasks.Token{}, y...), x...), 0},
	} {
		got, err := ParseCopiedChoice(tc.answer, x, y)
		assert.Equal(t, tc.want, got, v.Decode(tc.answer))
		assert.Equal(t, tc.want == 0, err != nil)
	}
	alt, err := Outcome(e, v.Encode("wait"))
	require.NoError(t, err)
	exp, err := Outcome(e, v.Encode("step"))
	require.NoError(t, err)
	assert.Equal(t, 0, e.Steps(), "Outcome steps a copy")
	r := Reflection(v, v.Encode("step"), exp, v.Encode("wait"), alt)
	assert.Equal(t, "<reflect> alternative wait -> nothing happens . expert step -> at 1 so expert is better", v.Decode(r))
}

// FuzzParseChoice: any answer parses to 1 or 2, or fails cleanly.
func FuzzParseChoice(f *testing.F) {
	v := newLine(1).v
	f.Add([]byte{byte(v.ID("1"))})
	f.Add([]byte{byte(v.ID("2")), 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		toks := make([]tasks.Token, len(data))
		for i, b := range data {
			toks[i] = tasks.Token(int8(b))
		}
		c, err := ParseChoice(v, toks)
		if err == nil {
			assert.Contains(t, []int{1, 2}, c)
		} else {
			assert.Equal(t, 0, c)
		}
	})
}

// TestPairJSON: a dataset pair survives a JSON round trip (the pipeline
// stores datasets as JSONL).
func TestPairJSON(t *testing.T) {
	pairs, err := ExpertPairs(newLine(3), History)
	require.NoError(t, err)
	for _, p := range pairs {
		raw, err := json.Marshal(p)
		require.NoError(t, err)
		var q Pair
		require.NoError(t, json.Unmarshal(raw, &q))
		assert.Equal(t, p.State.Tokens(newLine(1).v), q.State.Tokens(newLine(1).v))
		assert.Equal(t, p.Expert, q.Expert)
	}
}

// FuzzParseSplit: any text is a split or an error, and a split prints back
// as the text it was read from.
func FuzzParseSplit(f *testing.F) {
	for _, s := range []string{"train", "val", "test", "test-ood", "", "TEST"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSplit(s)
		if err == nil {
			assert.Equal(t, s, sp.String())
		}
	})
}
