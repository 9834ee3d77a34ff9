package telecom

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/taskstest"
)

func TestPromptAndTurnFormat(t *testing.T) {
	e := handEpisode(t, "dual", "spec", 2, "data")
	assert.Equal(t, "<bos> dual no-data L2 act", vocabulary.Decode(e.Prompt()))
	assert.Equal(t, tasks.Turn{Kind: tasks.AS, MaxTokens: turnTokens}, e.Next())
	obs, st, err := e.Step(toks(t, "say settings"))
	require.NoError(t, err)
	assert.Equal(t, "off off off act", vocabulary.Decode(obs))
	assert.Equal(t, "say settings → off off off", st.Text)
	assert.Equal(t, tasks.AS, st.Kind)
	obs, _, err = e.Step(toks(t, "say data"))
	require.NoError(t, err)
	assert.Equal(t, "works act", vocabulary.Decode(obs))
	obs, st, err = e.Step(toks(t, "done"))
	require.NoError(t, err)
	assert.Empty(t, obs, "the call is over: no reply, no header")
	assert.True(t, e.Done())
	assert.False(t, st.Final, "closing early is allowed; Final marks the last turn allowed")
	_, _, err = e.Step(toks(t, "done"))
	assert.Error(t, err, "step after the end")
	m := e.Measures()
	assert.True(t, m.Success)
	assert.Equal(t, 1.0, m.Reward)
	assert.Equal(t, 1.0, m.ASProxy, "new information, user stop, the expected close")
	assert.Equal(t, 1.0, m.Evidence)
	assert.Equal(t, 3, m.Turns)
	assert.Positive(t, m.IAS)
}

func TestTurnLimit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxTurns = 4
	task, err := New("solo", cfg)
	require.NoError(t, err)
	e := newEpisode(task, cfgOf(t, "data"), 0)
	var last []tasks.Token
	for i := 0; i < 4; i++ {
		require.False(t, e.Done())
		assert.Equal(t, i == 3, e.Next().Final)
		obs, st, err := e.Step(toks(t, "data")) // fixes, breaks, fixes, breaks
		require.NoError(t, err)
		assert.Equal(t, i == 3, st.Final)
		last = obs
		if i == 2 {
			assert.Equal(t, "ok last", vocabulary.Decode(obs), "the header of the last turn")
		}
	}
	assert.True(t, e.Done())
	assert.Equal(t, "ok", vocabulary.Decode(last), "no header after the last turn")
	assert.Equal(t, 0.0, e.Measures().Reward, "never closed")

	// Even with the world repaired, ending at the limit without done fails.
	e = newEpisode(task, cfgOf(t, "data"), 0)
	for _, a := range []string{"data", "bar", "settings", "test"} {
		_, _, err := e.Step(toks(t, a))
		require.NoError(t, err)
	}
	assert.True(t, e.Done())
	assert.False(t, e.Measures().Success)
}

func TestMalformedRepeatedOutOfRange(t *testing.T) {
	cases := []struct {
		in        string
		reply     string
		malformed bool
		repeat    bool
	}{
		{"", "invalid", true, false},
		{"#999", "invalid", true, false},
		{"#-1", "invalid", true, false},
		{"usage #999", "invalid", true, false},
		{"usage L1 L1", "invalid", true, false},
		{"usage L7", "err", false, false}, // a line id in the vocabulary but not the customer's
		{"usage L7", "err", false, true},  // the same failing call again
		{"bar", "bars", false, false},
		{"bar", "repeat", false, true},
		{"settings", "off off off", false, false},
		{"data", "ok", false, false},
		{"bar", "bars", false, false}, // a write happened since: not a repeat
	}
	e := handEpisode(t, "solo", "spec", 1, "data")
	for i, tc := range cases {
		obs, st, err := e.Step(toks(t, tc.in))
		require.NoError(t, err)
		assert.Equal(t, tc.reply+" act", vocabulary.Decode(obs), "%d %q", i, tc.in)
		assert.Equal(t, tc.malformed, st.Malformed, "%d %q", i, tc.in)
		assert.Equal(t, tc.repeat, st.Repeat, "%d %q", i, tc.in)
		if tc.malformed || tc.repeat {
			assert.Equal(t, int8(-1), st.Z)
		}
	}
	// A read happened since the last data, but no write: the second data is
	// a repeat (it still acts: it turns data off again).
	_, st, err := e.Step(toks(t, "data"))
	require.NoError(t, err)
	assert.True(t, st.Repeat)
	m := e.Measures()
	assert.Equal(t, 5, m.Malformed)
	assert.Equal(t, 3, m.Repeats)
}

func TestDeterminismAndSplits(t *testing.T) {
	// Mostly the strong policy, whose read choice breaks ties between
	// equally informative reads: those must be reproducible too.
	weak := tasks.PolicySpec{Kind: "weak", QAS: 0.8}
	stream := func(task *Task, split tasks.Split, idx int, seed uint64) []tasks.Token {
		return taskstest.Stream(t, task, weak, split, idx, seed)
	}
	a, err := New("dual", DefaultConfig())
	require.NoError(t, err)
	b, err := New("dual", DefaultConfig())
	require.NoError(t, err)
	other := DefaultConfig()
	other.Seed++
	c, err := New("dual", other)
	require.NoError(t, err)
	differ, trainTestDiffer := 0, 0
	for i := 0; i < 200; i++ {
		assert.Equal(t, stream(a, tasks.Train, i, 9), stream(b, tasks.Train, i, 9), "same config, split, index, policy seed")
		if !slices.Equal(stream(a, tasks.Train, i, 9), stream(c, tasks.Train, i, 9)) {
			differ++
		}
	}
	assert.Greater(t, differ, 100, "another task seed gives other instances")

	// Train and test instances come from disjoint seed ranges
	// (tasks.InstanceSeed); here: their instance sequences differ.
	for i := 0; i < 200; i++ {
		ct, lt, err := a.instance(tasks.Train, i)
		require.NoError(t, err)
		cs, ls, err := a.instance(tasks.Test, i)
		require.NoError(t, err)
		if ct != cs || lt != ls {
			trainTestDiffer++
		}
	}
	assert.Greater(t, trainTestDiffer, 150)
	_, err = a.NewEpisode(tasks.Test, -1)
	assert.Error(t, err)
	_, err = a.NewEpisode(tasks.Split(7), 0)
	assert.Error(t, err)
}

// streamLen plays a policy and counts the episode's tokens as a rollout
// would: the prompt, then per turn the agent's tokens and EOT (at most
// MaxTokens of the turn), then the observation; each turn within maxTurnLen.
func streamLen(t testing.TB, ep tasks.Episode, act func() []tasks.Token) int {
	n := len(ep.Prompt())
	for !ep.Done() {
		a := act()
		if len(a) > ep.Next().MaxTokens-1 {
			a = a[:ep.Next().MaxTokens-1] // the rollout stops sampling there
		}
		obs, _, err := ep.Step(a)
		require.NoError(t, err)
		if len(a)+1+len(obs) > maxTurnLen {
			t.Fatalf("turn %s + %s longer than %d", vocabulary.Decode(a), vocabulary.Decode(obs), maxTurnLen)
		}
		n += len(a) + 1 + len(obs)
	}
	return n
}

func TestEpisodesFitMaxTokens(t *testing.T) {
	for _, s := range []string{"solo", "dual"} {
		task, err := New(s, DefaultConfig())
		require.NoError(t, err)
		assert.Equal(t, 5+22*7, task.MaxTokens())
		rng := rand.New(rand.NewPCG(5, 5))
		for _, kind := range []string{"random", "strong"} {
			pol, err := task.Scripted(tasks.PolicySpec{Kind: kind})
			require.NoError(t, err)
			for i := 0; i < 100; i++ {
				ep, err := task.NewEpisode(tasks.Test, i)
				require.NoError(t, err)
				n := streamLen(t, ep, func() []tasks.Token { a, _ := pol.Act(ep, rng); return a })
				assert.LessOrEqual(t, n, task.MaxTokens())
			}
		}
		// Long turns on purpose: three-token replies with a write between
		// them (so reads never repeat), and overlong malformed turns.
		ep, err := task.NewEpisode(tasks.Test, 0)
		require.NoError(t, err)
		e := ep.(*Episode)
		long := [][]tasks.Token{
			{opToken(opLine), lineToken(e.line)},
			opAction(opSettings, e.t.setting, e.line).tokens(),
			opAction(opData, e.t.setting, e.line).tokens(),
			{tokOK, tokOK, tokOK, tokOK, tokOK},
		}
		i := 0
		n := streamLen(t, ep, func() []tasks.Token { i++; return long[i%len(long)] })
		assert.LessOrEqual(t, n, task.MaxTokens())
		assert.Equal(t, 22, len(ep.Steps()))
	}
}

func TestStats(t *testing.T) {
	e := handEpisode(t, "dual", "spec", 1, "airplane", "quota")
	for _, a := range []string{"line L1", "usage L0", "airplane", "say bar", "say airplane", "say restart", "refuel L1", "#999", "done"} {
		_, _, err := e.Step(toks(t, a))
		require.NoError(t, err)
	}
	s := e.Stats()
	assert.Equal(t, Stats{
		Turns: 9, ToolTurns: 4, MessageTurns: 3, CloseTurns: 1,
		ToolErrors: 2, NoEffectWrites: 1, UnexpectedWrites: 0, Malformed: 1,
		AgentTokens: 3 + 3 + 2 + 3 + 3 + 3 + 3 + 2 + 2,
	}, s)
	assert.InDelta(t, 4.0/9, s.ToolTurnRatio(), 1e-12)
	assert.True(t, e.Measures().Success)

	assert.Equal(t, map[string]float64{ExtraToolTurns: 4, ExtraMessageTurns: 3, ExtraToolErrors: 2, ExtraNoEffectWrites: 1,
		ExtraUnexpectedWrites: 0, ExtraToolTurnRatio: 4.0 / 9}, e.Measures().Extra, "the stats an evaluation averages")

	// An evaluation averages them per episode; the ratio skips an episode
	// without turns.
	none := Stats{}.extra()
	assert.True(t, math.IsNaN(none[ExtraToolTurnRatio]))
	sum := tasks.Summarize([]tasks.Measures{e.Measures(), {Extra: Stats{Turns: 2, ToolTurns: 2, ToolErrors: 1}.extra()}, {Extra: none}})
	assert.InDelta(t, 1, sum.Extra[ExtraToolErrors], 1e-12)
	assert.InDelta(t, (4.0/9+1)/2, sum.Extra[ExtraToolTurnRatio], 1e-12)
}

func TestRegistryAndConfig(t *testing.T) {
	for _, name := range []string{"telecom-solo", "telecom-dual"} {
		task, err := tasks.New(name, nil)
		require.NoError(t, err)
		assert.Equal(t, name, task.Name())
		assert.Equal(t, vocabulary, task.Vocab())
		assert.LessOrEqual(t, task.Vocab().Size(), 100)
	}
	task, err := tasks.New("telecom-solo", json.RawMessage(`{"MaxTurns": 10, "Faults": ["data", "quota"], "Critiques": "consistent"}`))
	require.NoError(t, err)
	assert.Equal(t, 5+10*7, task.MaxTokens())
	assert.Len(t, task.(*Task).prior.configs, 3, "two singles and their pair")
	for _, bad := range []string{
		`{"MaxTurns": 1}`, `{"MaxTurns": 41}`, `{"LateTurn": 0}`, `{"PTwo": 1.5}`, `{"PTwo": -0.1}`,
		`{"Lines": 0}`, `{"Lines": 9}`, `{"Critiques": "noisy"}`, `{"Faults": []}`, `{"Faults": ["apn"]}`,
		`{"Faults": ["data", "data"]}`, `{"Turns": 3}`,
	} {
		_, err := tasks.New("telecom-dual", json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
	_, err = New("trio", DefaultConfig())
	assert.Error(t, err)
}

// FuzzEpisode feeds arbitrary token turns through taskstest.CheckEpisode:
// no panic, every turn judged, the episode ends within MaxTurns and within
// MaxTokens, observations inside the vocabulary.
func FuzzEpisode(f *testing.F) {
	f.Add([]byte{}, uint16(0), true)
	f.Add(tokensToBytes(toks(f, "usage L1 say airplane #999 done")), uint16(3), true)
	f.Add(tokensToBytes(toks(f, "bar bar data settings transfer")), uint16(8), false)
	f.Fuzz(func(t *testing.T, b []byte, idx uint16, dualSetting bool) {
		s := "solo"
		if dualSetting {
			s = "dual"
		}
		task, err := New(s, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		ep, err := task.NewEpisode(tasks.Train, int(idx))
		if err != nil {
			t.Fatal(err)
		}
		// Cut the input into turns of 0–3 tokens, cycling through it.
		in := bytesToTokens(b)
		turns := make([][]tasks.Token, task.cfg.MaxTurns)
		for k := range turns {
			if len(in) == 0 {
				break
			}
			turns[k] = make([]tasks.Token, (k+1)%4)
			for i := range turns[k] {
				turns[k][i] = in[((k+1)*3+i)%len(in)]
			}
		}
		taskstest.CheckEpisode(t, task, ep, turns, task.cfg.MaxTurns)
	})
}
