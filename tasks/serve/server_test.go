package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

func TestInfoEndpoints(t *testing.T) {
	h := testServer(t, nil).Handler()
	var health map[string]string
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/health", nil, &health))
	assert.Equal(t, "healthy", health["status"])

	var meta struct {
		Name  string
		Tasks []string
	}
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/metadata", nil, &meta))
	assert.Equal(t, names(), meta.Tasks)
	assert.Subset(t, meta.Tasks, append(tasks.Names(), "alfworld", "webshop", "sciworld"))

	var schema map[string]json.RawMessage
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/schema", nil, &schema))
	for _, k := range []string{"action", "observation", "state", "step_info", "command_state", "command_step_info"} {
		assert.Contains(t, schema, k)
	}

	var list struct {
		Tasks        []TaskInfo
		AnswerRules  string `json:"answer_rules"`
		CommandRules string `json:"command_rules"`
	}
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/tasks", nil, &list))
	require.Len(t, list.Tasks, len(names()))
	assert.Equal(t, textworld.CommandRules, list.CommandRules)
	for _, ti := range list.Tasks {
		assert.NotEqual(t, "null", string(ti.Config), ti.Name)
		if textworld.Registered(ti.Name) {
			assert.Equal(t, ProtocolCommands, ti.Protocol)
			assert.Contains(t, ti.System, textworld.CommandRules, ti.Name)
			assert.Positive(t, ti.MaxSteps, ti.Name)
			assert.Zero(t, ti.MaxTokens, ti.Name)
			continue
		}
		assert.Equal(t, ProtocolRounds, ti.Protocol)
		assert.Contains(t, ti.System, tasks.AnswerRules, ti.Name)
		assert.Positive(t, ti.MaxTokens, ti.Name)
		assert.Zero(t, ti.MaxSteps, ti.Name)
	}
}

// playHTTP plays the strong policy's moves, as text, through the server
// and returns every reply.
func playHTTP(t *testing.T, h http.Handler, name string, config json.RawMessage, index int) []Result {
	var res Result
	body := map[string]any{"task": name, "split": "test", "index": index}
	if config != nil {
		body["config"] = config
	}
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", body, &res))
	out := []Result{res}
	sh := newShadow(t, name, config, tasks.Test, index, "strong")
	for !res.Done {
		require.Less(t, len(out), 100)
		res = Result{}
		require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(out[0], sh.move(t)), &res))
		out = append(out, res)
	}
	return out
}

// TestPlayEqualsTokens: every registered task played through HTTP ends
// with the measures of the same moves played on a token episode, and a
// second run of the same reset and moves gives the same replies.
func TestPlayEqualsTokens(t *testing.T) {
	h := testServer(t, nil).Handler()
	for _, name := range tasks.Names() {
		t.Run(name, func(t *testing.T) {
			var config json.RawMessage
			if strings.HasPrefix(name, "pe-") {
				config = json.RawMessage(`{"Particles": 64}`)
			}
			first := playHTTP(t, h, name, config, 3)
			sh := newShadow(t, name, config, tasks.Test, 3, "strong")
			for !sh.ep.Done() {
				sh.move(t)
			}
			m := sh.ep.Measures()
			last := first[len(first)-1]
			var info StepInfo
			raw, _ := json.Marshal(last.Info)
			require.NoError(t, json.Unmarshal(raw, &info))
			require.NotNil(t, info.Measures)
			assert.Equal(t, *measureOf(m), *info.Measures)
			if strings.HasPrefix(name, "telecom-") {
				assert.Len(t, info.Measures.Extra, 6, "telecom's own counts too")
			}
			assert.Equal(t, m.Reward, last.Reward)
			assert.Nil(t, last.Observation.Turn)
			assert.NotEmpty(t, first[0].Observation.System)

			again := playHTTP(t, h, name, config, 3)
			require.Len(t, again, len(first))
			for i := range first {
				again[i].EpisodeID, again[i].Token = first[i].EpisodeID, first[i].Token
				a, _ := json.Marshal(first[i])
				b, _ := json.Marshal(again[i])
				assert.JSONEq(t, string(a), string(b), "reply %d", i)
			}
		})
	}
}

func TestStepInfo(t *testing.T) {
	h := testServer(t, nil).Handler()
	var res Result
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", `{"task": "flodial-easy", "seed": 2}`, &res))
	assert.Equal(t, &TurnInfo{Index: 0, Kind: "AS", MaxWords: 1}, res.Observation.Turn)
	var fresh State
	require.Equal(t, http.StatusOK, call(t, h, "GET", stateURL(res), nil, &fresh))
	assert.NotNil(t, fresh.Steps, "steps is a list, empty before the first step")
	var step struct {
		Observation Observation
		Info        StepInfo
	}
	// An unknown word: malformed by the parser, penalised as tokens.
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(res, "I ask:\nq99"), &step))
	assert.True(t, step.Info.Malformed)
	assert.Equal(t, int8(-1), step.Info.Critique)
	assert.Contains(t, step.Info.ParseError, "q99")
	assert.Contains(t, step.Observation.Text, "BAD")
	assert.Nil(t, step.Info.TruthMass)
	// The object form of an action; a belief has a truth mass.
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(res, map[string]string{"text": "<answer>1 1 1 1 1 1</answer>"}), &step))
	assert.Equal(t, "BT", step.Info.Kind)
	assert.False(t, step.Info.Malformed)
	require.NotNil(t, step.Info.TruthMass)
	assert.InDelta(t, 1.0/6, *step.Info.TruthMass, 1e-9)

	var st State
	require.Equal(t, http.StatusOK, call(t, h, "GET", stateURL(res), nil, &st))
	assert.Equal(t, 2, st.StepCount)
	assert.Equal(t, int64(2), st.Index)
	assert.Equal(t, "train", st.Split)
	assert.False(t, st.Done)
}

func TestErrors(t *testing.T) {
	s := testServer(t, func(c *Config) { c.MaxBodyBytes = 2048; c.MaxActionBytes = 100 })
	h := s.Handler()
	var res Result
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", `{"task": "telecom-solo", "episode_id": "mine"}`, &res))
	require.Equal(t, "mine", res.EpisodeID)
	mine := res
	done := Result{}
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset", `{"task": "telecom-solo"}`, &done))
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/step", act(done, "done"), &done))
	require.True(t, done.Done)

	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		msg                string
	}{
		{"bad JSON", "POST", "/reset", `{"task": `, 400, "bad JSON"},
		{"unknown field", "POST", "/reset", `{"task": "mediq", "splt": "test"}`, 400, "splt"},
		{"trailing data", "POST", "/reset", `{"task": "mediq"} {}`, 400, "after"},
		{"no task", "POST", "/reset", `{}`, 400, "missing"},
		{"unknown task", "POST", "/reset", `{"task": "chess"}`, 400, "unknown task"},
		{"bad split", "POST", "/reset", `{"task": "mediq", "split": "dev"}`, 400, "split"},
		{"index and seed", "POST", "/reset", `{"task": "mediq", "index": 1, "seed": 1}`, 400, "not both"},
		{"negative index", "POST", "/reset", `{"task": "mediq", "index": -1}`, 400, "outside"},
		{"bad config", "POST", "/reset", `{"task": "mediq", "config": {"Rounds": 0}}`, 400, "Rounds"},
		{"config not an object", "POST", "/reset", `{"task": "mediq", "config": [1]}`, 400, "object"},
		{"unknown config field", "POST", "/reset", `{"task": "mediq", "config": {"Roundz": 2}}`, 400, "Roundz"},
		{"bad episode id", "POST", "/reset", `{"task": "mediq", "episode_id": "a b"}`, 400, "episode_id"},
		{"body too big", "POST", "/reset", `{"task": "` + strings.Repeat("x", 3000) + `"}`, 413, "over"},
		{"duplicate key", "POST", "/reset", `{"task": "mediq", "task": "flodial-easy"}`, 400, "duplicate"},
		{"duplicate nested key", "POST", "/reset", `{"task": "mediq", "config": {"Rounds": 2, "Rounds": 3}}`, 400, "duplicate"},
		{"field in another case", "POST", "/reset", `{"Task": "mediq"}`, 400, "case-sensitive"},
		{"config field in another case", "POST", "/reset", `{"task": "mediq", "config": {"rounds": 2}}`, 400, "case-sensitive"},
		{"token field in another case", "POST", "/step", map[string]any{"episode_id": "mine", "Token": mine.Token, "action": "q1"}, 400, "case-sensitive"},
		{"action field in another case", "POST", "/step", map[string]any{"episode_id": "mine", "token": mine.Token, "action": map[string]string{"Text": "q1"}}, 400, "action"},
		{"no action", "POST", "/step", map[string]any{"episode_id": "mine", "token": mine.Token}, 400, "action"},
		{"action not text", "POST", "/step", map[string]any{"episode_id": "mine", "token": mine.Token, "action": 3}, 400, "action"},
		{"action object with other fields", "POST", "/step", map[string]any{"episode_id": "mine", "token": mine.Token, "action": map[string]string{"message": "q1"}}, 400, "action"},
		{"action too long", "POST", "/step", act(mine, strings.Repeat("a ", 51)), 400, "limit"},
		{"no episode id", "POST", "/step", `{"action": "q1"}`, 400, "episode_id"},
		{"no token", "POST", "/step", `{"episode_id": "mine", "action": "q1"}`, 400, "token"},
		{"unknown episode", "POST", "/step", `{"episode_id": "nope", "token": "x", "action": "q1"}`, 404, "unknown episode"},
		{"step after the end", "POST", "/step", act(done, "done"), 409, "over"},
		{"state of unknown episode", "GET", "/state?episode_id=nope&token=x", nil, 404, "unknown episode"},
		{"state without id", "GET", "/state", nil, 400, "episode_id"},
		{"state without token", "GET", "/state?episode_id=mine", nil, 400, "token"},
		{"state with a repeated parameter", "GET", stateURL(mine) + "&token=x", nil, 400, "times"},
		{"state with an unknown parameter", "GET", stateURL(mine) + "&x=1", nil, 400, "unknown"},
		{"close unknown", "POST", "/close", `{"episode_id": "nope", "token": "x"}`, 404, "unknown episode"},
		{"wrong method", "GET", "/reset", nil, 405, "use POST"},
		{"unknown path", "GET", "/play", nil, 404, "no such endpoint"},
		{"double slash", "POST", "//reset", `{"task": "mediq"}`, 404, "no such endpoint"},
		{"dot segment", "GET", "/./health", nil, 404, "no such endpoint"},
		{"dot-dot segment", "GET", "/tasks/../health", nil, 404, "no such endpoint"},
		{"trailing slash", "GET", "/health/", nil, 404, "no such endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e map[string]string
			assert.Equal(t, c.status, call(t, h, c.method, c.path, c.body, &e))
			assert.Contains(t, e["error"], c.msg)
		})
	}
	var closed map[string]any
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/close", map[string]any{"episode_id": "mine", "token": mine.Token}, &closed))
	assert.Equal(t, http.StatusNotFound, call(t, h, "POST", "/step", act(mine, "q1"), nil))
}

func TestCapacityAndExpiry(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	s := testServer(t, func(c *Config) { c.MaxEpisodes = 2; c.IdleTTL = time.Minute; c.Now = clk.now })
	h := s.Handler()
	reset := func() (Result, int) {
		var r Result
		return r, call(t, h, "POST", "/reset", `{"task": "telecom-solo"}`, &r)
	}
	a, code := reset()
	require.Equal(t, 200, code)
	b, code := reset()
	require.Equal(t, 200, code)
	_, code = reset()
	assert.Equal(t, http.StatusServiceUnavailable, code, "full, nothing finished or expired")

	// A finished episode makes room.
	require.Equal(t, 200, call(t, h, "POST", "/step", act(a, "done"), nil))
	c, code := reset()
	require.Equal(t, 200, code)
	assert.Equal(t, http.StatusNotFound, call(t, h, "GET", stateURL(a), nil, nil))

	// Idle past the TTL: gone.
	clk.t = clk.t.Add(30 * time.Second)
	require.Equal(t, 200, call(t, h, "GET", stateURL(c), nil, nil)) // touch c
	clk.t = clk.t.Add(45 * time.Second)
	assert.Equal(t, http.StatusNotFound, call(t, h, "POST", "/step", act(b, "bar"), nil))
	assert.Equal(t, 200, call(t, h, "POST", "/step", act(c, "bar"), nil))
	clk.t = clk.t.Add(2 * time.Minute)
	s.Sweep()
	assert.Equal(t, 0, s.Live())
}

// TestConcurrentEpisodes plays many episodes at once (run with -race).
func TestConcurrentEpisodes(t *testing.T) {
	h := testServer(t, nil).Handler()
	var wg sync.WaitGroup
	results := make([]float64, 16)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"flodial-easy", "mediq", "telecom-dual", "flodial-hard"}[g%4]
			sh := newShadow(t, name, nil, tasks.Train, g, "strong")
			var res Result
			if call(t, h, "POST", "/reset", map[string]any{"task": name, "index": g}, &res) != 200 {
				t.Errorf("reset %s", name)
				return
			}
			first := res
			for !res.Done {
				if call(t, h, "POST", "/step", act(first, sh.move(t)), &res) != 200 {
					t.Errorf("step %s", name)
					return
				}
			}
			results[g] = res.Reward - sh.ep.Measures().Reward
		}()
	}
	wg.Wait()
	assert.Equal(t, make([]float64, 16), results, "each HTTP episode's reward equals its token twin's")
}

func TestConfigValidate(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.MaxBodyBytes = 10 },
		func(c *Config) { c.MaxActionBytes = 0 },
		func(c *Config) { c.MaxActionBytes = int(c.MaxBodyBytes) + 1 },
		func(c *Config) { c.MaxEpisodes = 0 },
		func(c *Config) { c.IdleTTL = 0 },
		func(c *Config) { c.MaxTaskBytes = 1000 },
		func(c *Config) { c.MaxEpisodesPerClient = 0 },
		func(c *Config) { c.MaxBuilds = 0 },
	} {
		c := DefaultConfig()
		mod(&c)
		_, err := New(c)
		assert.Error(t, err, fmt.Sprintf("%+v", c))
	}
}
