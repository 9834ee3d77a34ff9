package serve

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

// commandReply is a /step reply on a text environment, decoded.
type commandReply struct {
	EpisodeID   string      `json:"episode_id"`
	Observation Observation `json:"observation"`
	Reward      float64     `json:"reward"`
	Done        bool        `json:"done"`
	Info        CommandInfo `json:"info"`
}

// playExpert plays the expert's commands, as text, through the server on
// instance index of split and returns every reply; twin is a local env of
// the same instance, stepped alongside.
func playExpert(t *testing.T, h http.Handler, name, split string, index int) (Result, []commandReply, textworld.Env) {
	w, err := textworld.NewWorld(name, nil)
	require.NoError(t, err)
	sp, err := textworld.ParseSplit(split)
	require.NoError(t, err)
	twin, err := w.Env(sp)(index)
	require.NoError(t, err)
	var res Result
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", map[string]any{"task": name, "split": split, "index": index}, &res))
	var out []commandReply
	for !twin.Done() {
		require.Less(t, len(out), 200)
		a := twin.Expert()
		want, err := twin.Step(a)
		require.NoError(t, err)
		var r commandReply
		require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(res, "I will do that.\n<answer>"+w.Vocab().Decode(a)+"</answer>"), &r))
		require.True(t, r.Info.Admissible, "%s: expert command %q", name, r.Info.Move)
		require.True(t, strings.HasPrefix(r.Observation.Text, w.Vocab().Decode(want)), "%s: %q", name, r.Observation.Text)
		out = append(out, r)
	}
	return res, out, twin
}

// TestCommandsPlay: each text environment played by its expert through
// HTTP, as text, gives the twin's observations, reward and success, the
// same replies when replayed, a reset that shows the goal, the commands
// that apply and the system prompt, and a state that records the steps.
func TestCommandsPlay(t *testing.T) {
	h := testServer(t, nil).Handler()
	for _, name := range textworld.Names() {
		t.Run(name, func(t *testing.T) {
			res, steps, twin := playExpert(t, h, name, "test", 2)
			obs := res.Observation
			assert.Contains(t, obs.System, textworld.CommandRules)
			require.NotNil(t, obs.Turn)
			assert.Equal(t, TurnInfo{Index: 0, Kind: KindCommand, MaxWords: textworld.MaxCommandWords}, *obs.Turn)
			require.NotEmpty(t, obs.Admissible)
			assert.True(t, strings.HasPrefix(obs.Text, twin.Vocab().Decode(twin.Goal())), obs.Text)
			assert.Contains(t, obs.Text, "Commands that apply now:\n- "+obs.Admissible[0])
			var info ResetInfo
			raw, _ := json.Marshal(res.Info)
			require.NoError(t, json.Unmarshal(raw, &info))
			assert.Equal(t, ResetInfo{Task: name, Split: "test", Index: 2, MaxSteps: twin.MaxSteps()}, info)

			last := steps[len(steps)-1]
			assert.True(t, last.Done)
			assert.Nil(t, last.Observation.Turn)
			assert.Empty(t, last.Observation.Admissible)
			require.NotNil(t, last.Info.Measures)
			assert.Equal(t, CommandMeasures{Reward: twin.Reward(), Success: twin.Success(), Steps: twin.Steps()}, *last.Info.Measures)
			assert.Equal(t, 1.0, last.Reward)
			for i, s := range steps[:len(steps)-1] {
				assert.False(t, s.Done)
				assert.Zero(t, s.Reward)
				assert.Nil(t, s.Info.Measures)
				assert.Equal(t, i+1, s.Observation.Turn.Index)
			}

			var st CommandState
			require.Equal(t, http.StatusOK, call(t, h, "GET", stateURL(res), nil, &st))
			assert.Equal(t, len(steps), st.StepCount)
			assert.True(t, st.Done)
			assert.Equal(t, last.Info.Measures, st.Measures)
			assert.Equal(t, steps[0].Info.Move, st.Steps[0].Move)
			var e map[string]string
			assert.Equal(t, http.StatusConflict, call(t, h, "POST", "/step", act(res, "look"), &e))
			assert.Contains(t, e["error"], "is over")

			_, again, _ := playExpert(t, h, name, "test", 2)
			require.Len(t, again, len(steps))
			for i := range steps {
				again[i].EpisodeID = steps[i].EpisodeID
				assert.Equal(t, steps[i], again[i], "reply %d", i)
			}
			require.Equal(t, http.StatusOK, call(t, h, "POST", "/close", closeBody(res), nil))
		})
	}
}

// TestCommandStepInfo: a reply that does not read is malformed and used up
// as an inadmissible step; a command that does not apply is answered
// "nothing happens ."; repeating it right after is a repeated failure; a
// run out of steps ends with reward 0 and the measures count it all.
func TestCommandStepInfo(t *testing.T) {
	h := testServer(t, nil).Handler()
	var res Result
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", map[string]any{"task": "alfworld", "index": 1, "config": map[string]any{"MaxSteps": 4}}, &res))
	step := func(text any) commandReply {
		var r commandReply
		require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(res, text), &r))
		return r
	}
	r := step("I would rather sing.\nla la la")
	assert.True(t, r.Info.Malformed)
	assert.False(t, r.Info.Admissible)
	assert.Contains(t, r.Info.ParseError, `unknown word "la"`)
	assert.Empty(t, r.Info.Move)
	assert.Equal(t, []int32{int32(tasks.Pad)}, r.Info.Tokens)
	assert.True(t, strings.HasPrefix(r.Observation.Text, "nothing happens ."))
	assert.Equal(t, 1, r.Observation.Turn.Index)

	r = step("put apple 1 in fridge 1") // holding nothing: reads, does not apply
	assert.False(t, r.Info.Malformed)
	assert.False(t, r.Info.Admissible)
	assert.False(t, r.Info.Repeat)
	assert.Equal(t, "put apple 1 in fridge 1", r.Info.Move)
	r = step("**Put apple 1 in fridge 1.**")
	assert.True(t, r.Info.Repeat)
	r = step(map[string]string{"text": "look"})
	assert.True(t, r.Info.Admissible)
	assert.True(t, r.Done)
	assert.Zero(t, r.Reward)
	assert.Equal(t, CommandMeasures{Steps: 4, Malformed: 1, Inadmissible: 3, RepeatedFailures: 1}, *r.Info.Measures)
	var st CommandState
	require.Equal(t, http.StatusOK, call(t, h, "GET", stateURL(res), nil, &st))
	assert.Equal(t, []CommandRecord{
		{Turn: 0, Kind: KindCommand, Malformed: true},
		{Turn: 1, Kind: KindCommand, Move: "put apple 1 in fridge 1"},
		{Turn: 2, Kind: KindCommand, Move: "put apple 1 in fridge 1", Repeat: true},
		{Turn: 3, Kind: KindCommand, Move: "look", Admissible: true},
	}, st.Steps)
}

// TestCommandErrors: bad resets of text environments are 400 with a clear
// message; the token, length and JSON rules of /step are the tasks'.
func TestCommandErrors(t *testing.T) {
	h := testServer(t, nil).Handler()
	for _, c := range []struct {
		body any
		want string
	}{
		{map[string]any{"task": "webshop", "split": "test-ood"}, "no test-ood split"},
		{map[string]any{"task": "alfworld", "split": "valid"}, "split must be train, val, test or test-ood"},
		{map[string]any{"task": "flodial-easy", "split": "test-ood"}, "split"},
		{map[string]any{"task": "alfworld", "split": "test-ood", "index": 134}, "outside the test-ood split"},
		{map[string]any{"task": "sciworld", "index": 200}, "outside the train split"},
		{map[string]any{"task": "alfworld", "config": map[string]any{"Train": 1001}}, "at most 1000 when served"},
		{map[string]any{"task": "webshop", "config": map[string]any{"MaxSteps": 101}}, "at most 100 when served"},
		{map[string]any{"task": "alfworld", "config": map[string]any{"Layouts": 401}}, "Layouts"},
		{map[string]any{"task": "webshop", "config": map[string]any{"PerCategory": 38}}, "PerCategory"},
		{map[string]any{"task": "sciworld", "config": map[string]any{"maxsteps": 5}}, "maxsteps"},
		{map[string]any{"task": "sciworld", "config": map[string]any{"Rooms": 5}}, "Rooms"},
		{map[string]any{"task": "sciworld", "config": map[string]any{"MaxSteps": 0}}, "MaxSteps"},
		{`{"task": "webshop", "config": {"MaxSteps": 5, "MaxSteps": 6}}`, "MaxSteps"},
	} {
		var e map[string]string
		assert.Equal(t, http.StatusBadRequest, call(t, h, "POST", "/reset", c.body, &e), "%v", c.body)
		assert.Contains(t, e["error"], c.want, "%v", c.body)
	}
	var res Result
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", map[string]any{"task": "alfworld", "split": "test-ood", "index": 133}, &res))
	var e map[string]string
	assert.Equal(t, http.StatusBadRequest, call(t, h, "POST", "/step", act(res, strings.Repeat("x", DefaultConfig().MaxActionBytes+1)), &e))
	assert.Contains(t, e["error"], "over the limit")
	assert.Equal(t, http.StatusBadRequest, call(t, h, "POST", "/step", act(res, 7), &e))
	assert.Equal(t, http.StatusBadRequest, call(t, h, "POST", "/step", act(res, nil), &e))
	wrong := res
	wrong.Token = "X" + res.Token[1:]
	if wrong.Token == res.Token { // a token that starts with X (1 in 32)
		wrong.Token = "Y" + res.Token[1:]
	}
	assert.Equal(t, http.StatusNotFound, call(t, h, "POST", "/step", act(wrong, "look"), &e))
	assert.Equal(t, http.StatusNotFound, call(t, h, "GET", stateURL(wrong), nil, &e))
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/close", closeBody(res), nil))
	assert.Equal(t, http.StatusNotFound, call(t, h, "POST", "/step", act(res, "look"), &e))
}

// worldsAtBounds are the text environments with every field that drives
// the cost of a world or an episode at its serving bound.
var worldsAtBounds = []struct{ task, config string }{
	{"alfworld", `{"Layouts": 400, "Train": 1000, "Test": 1000, "TestOOD": 1000, "MaxSteps": 100}`},
	{"webshop", `{"PerCategory": 37, "Train": 1000, "Test": 1000, "MaxSteps": 100}`},
	{"sciworld", `{"Train": 1000, "Test": 1000, "MaxSteps": 100}`},
}

// maxWorldBuildBytes bounds what building a world at the serving bounds
// allocates (most of it garbage at once: every training game is drawn to
// fingerprint it).
const maxWorldBuildBytes = 16 << 20

// TestWorldCostAtBounds: each text environment at its serving bounds holds
// at most 1 MiB (estimated with sizeOf, checked against the heap), is built
// with at most 16 MiB allocated, and a reset on it allocates at most 1 MiB.
func TestWorldCostAtBounds(t *testing.T) {
	for _, c := range worldsAtBounds {
		t.Run(c.task, func(t *testing.T) {
			var w textworld.World
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			build := allocated(1, func() {
				var err error
				w, err = buildWorld(c.task, json.RawMessage(c.config))
				require.NoError(t, err)
			})
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			size := sizeOf(w)
			assert.LessOrEqual(t, build, float64(maxWorldBuildBytes), "bytes allocated by the build")
			assert.LessOrEqual(t, size, int64(maxResetBytes), "world size")
			assert.LessOrEqual(t, held, int64(maxResetBytes), "world heap")
			assert.Greater(t, 2*size, held, "estimate %d vs heap %d", size, held)
			i := int64(0)
			per := allocated(20, func() {
				c, err := startCommands(w, "train", i)
				require.NoError(t, err)
				_ = c.observation(true)
				i++
			})
			assert.LessOrEqual(t, per, float64(maxResetBytes), "bytes per reset")
			t.Logf("world %d bytes (heap %d, built with %.0f allocated); reset %.0f bytes", size, held, build, per)
			runtime.KeepAlive(w)
		})
	}
}

// TestLiveCommandEpisodeAtBounds: a finished text-environment episode at
// the serving bounds (the longest episodes: MaxSteps 100), played by random
// admissible commands mixed with unreadable text, keeps at most 128 KiB of
// its own beside its world.
func TestLiveCommandEpisodeAtBounds(t *testing.T) {
	const n, maxEpisodeBytes = 32, 128 << 10
	for _, c := range worldsAtBounds {
		t.Run(c.task, func(t *testing.T) {
			w, err := buildWorld(c.task, json.RawMessage(c.config))
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, 2))
			kept := make([]*commandEpisode, n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range kept {
				ep, err := startCommands(w, "train", int64(i))
				require.NoError(t, err)
				for !ep.env.Done() {
					text := "no such words"
					if adm := ep.env.Admissible(); rng.IntN(4) > 0 && len(adm) > 0 {
						text = w.Vocab().Decode(adm[rng.IntN(len(adm))])
					}
					_, err := ep.step(text)
					require.NoError(t, err)
				}
				kept[i] = ep
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
			assert.LessOrEqual(t, per, int64(maxEpisodeBytes))
			t.Logf("%d bytes per finished episode", per)
			runtime.KeepAlive(kept)
		})
	}
}
