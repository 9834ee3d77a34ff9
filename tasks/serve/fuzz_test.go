package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"arew/tasks"
	"arew/tasks/textworld"
)

// allowed are the statuses a handler may answer arbitrary input with.
var allowed = map[int]bool{200: true, 400: true, 404: true, 409: true, 413: true, 429: true, 503: true}

// FuzzHandlers sends arbitrary bodies to /reset, /step and /close and
// arbitrary episode ids to /state: the server must answer with one of the
// documented statuses and valid JSON, never panic (a panic would be a 500).
func FuzzHandlers(f *testing.F) {
	for _, seed := range []string{
		`{"task": "flodial-easy", "index": 3}`, `{"task": "mediq", "config": {"Rounds": 2}}`,
		`{"episode_id": "fz", "action": "q1"}`, `{"episode_id": "fz", "action": {"text": "0 1"}}`,
		`{"task": "pe-f-d6", "seed": 1e30}`, `{"task": "telecom-dual", "split": "test", "episode_id": "x"}`,
		`[]`, `null`, `{"index": -0}`, "\x00", `{"task": "flodial-easy", "config": {"Faults": 1e9}}`,
		`{"task": "alfworld", "split": "test-ood", "index": 7}`, `{"task": "webshop", "config": {"PerCategory": 1e9}}`,
		`{"task": "sciworld", "split": "test-ood"}`, `{"episode_id": "fz", "action": "click [ buy now ]"}`,
	} {
		f.Add(seed)
	}
	s := testServer(f, func(c *Config) { c.MaxEpisodes = 64; c.MaxBodyBytes = 4096; c.MaxActionBytes = 512 })
	h := s.Handler()
	var res Result
	require.Equal(f, 200, call(f, h, "POST", "/reset", `{"task": "flodial-easy", "episode_id": "fz"}`, &res))
	f.Fuzz(func(t *testing.T, body string) {
		for _, target := range []struct{ method, path string }{
			{"POST", "/step"}, {"POST", "/reset"}, {"POST", "/close"}, {"GET", "/state?episode_id=" + body},
		} {
			rec := httptest.NewRecorder()
			var req *http.Request
			if target.method == "GET" {
				req = httptest.NewRequest("GET", "/state", nil)
				q := req.URL.Query()
				q.Set("episode_id", body)
				req.URL.RawQuery = q.Encode()
			} else {
				req = httptest.NewRequest(target.method, target.path, bytes.NewReader([]byte(body)))
			}
			h.ServeHTTP(rec, req)
			if !allowed[rec.Code] {
				t.Fatalf("%s %s %q: status %d: %s", target.method, target.path, body, rec.Code, rec.Body.String())
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %s %q: reply is not JSON: %q", target.method, target.path, body, rec.Body.String())
			}
		}
	})
}

// FuzzStepText sends arbitrary text as the move of a live episode: always
// 200 (or 409 once it is over, 400 past the length limit), and the reply's
// critique is one of −1, 0, +1.
func FuzzStepText(f *testing.F) {
	for _, seed := range []string{"q3", "<answer>0 3 3 0 0 0</answer>", "Move: Q1.", "", "<answer>", "\xff\xfe", "q1 q2 q3"} {
		f.Add(seed)
	}
	s := testServer(f, func(c *Config) { c.MaxActionBytes = 1024 })
	h := s.Handler()
	var res Result
	id, token := "", ""
	f.Fuzz(func(t *testing.T, text string) {
		if id == "" || res.Done {
			if id != "" { // close it, or the per-client limit (1024 live episodes) answers 429
				require.Equal(t, 200, call(t, h, "POST", "/close", map[string]string{"episode_id": id, "token": token}, nil))
			}
			require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "mediq"}`, &res))
			id, token = res.EpisodeID, res.Token
		}
		body, err := json.Marshal(map[string]string{"episode_id": id, "token": token, "action": text})
		require.NoError(t, err)
		var step struct {
			Result
			Info StepInfo `json:"info"` // tagged: else the embedded Result.Info takes "info"
		}
		code := call(t, h, "POST", "/step", string(body), &step)
		var sent struct{ Action string }
		require.NoError(t, json.Unmarshal(body, &sent)) // invalid UTF-8 became U+FFFD
		if len(sent.Action) > 1024 {
			require.Equal(t, 400, code)
			return
		}
		require.Equal(t, 200, code)
		require.Contains(t, []int8{-1, 0, 1}, step.Info.Critique)
		if step.Info.ParseError != "" {
			require.True(t, step.Info.Malformed)
		}
		res = step.Result
	})
}

// FuzzStepCommand sends arbitrary text as the command of a live webshop
// episode (its commands hold brackets): always 200 (or 400 past the length
// limit), a text that does not read is malformed with a reason and played
// as <pad>, and one that reads is at most MaxCommandWords words of the
// environment, no structure token among them.
func FuzzStepCommand(f *testing.F) {
	for _, seed := range []string{"search [ red mug ]", "click [p3]", "<answer>click [ next > ]</answer>", "Action: search [", "", "]]]", "\xff", "click [ < prev ].", "<Answer> ,", "000"} {
		f.Add(seed)
	}
	s := testServer(f, func(c *Config) { c.MaxActionBytes = 1024 })
	h := s.Handler()
	w, err := textworld.NewWorld("webshop", nil)
	require.NoError(f, err)
	var res Result
	id, token := "", ""
	f.Fuzz(func(t *testing.T, text string) {
		if id == "" || res.Done {
			if id != "" { // close it, or the per-client limit (1024 live episodes) answers 429
				require.Equal(t, 200, call(t, h, "POST", "/close", map[string]string{"episode_id": id, "token": token}, nil))
			}
			require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "webshop"}`, &res))
			id, token = res.EpisodeID, res.Token
		}
		body, err := json.Marshal(map[string]string{"episode_id": id, "token": token, "action": text})
		require.NoError(t, err)
		var step struct {
			Result
			Info CommandInfo `json:"info"`
		}
		code := call(t, h, "POST", "/step", string(body), &step)
		var sent struct{ Action string }
		require.NoError(t, json.Unmarshal(body, &sent))
		if len(sent.Action) > 1024 {
			require.Equal(t, 400, code)
			return
		}
		require.Equal(t, 200, code)
		require.Equal(t, step.Info.Malformed, step.Info.ParseError != "")
		if step.Info.Malformed {
			require.Equal(t, []int32{0}, step.Info.Tokens)
			require.False(t, step.Info.Admissible)
		} else {
			toks := make([]tasks.Token, len(step.Info.Tokens))
			for i, t := range step.Info.Tokens {
				toks[i] = tasks.Token(t)
			}
			require.Equal(t, step.Info.Move, w.Vocab().Decode(toks))
			words, ok := textworld.ReadWords(w.Vocab(), toks)
			require.True(t, ok, "a structure token or an id outside the vocabulary in %v", toks)
			require.LessOrEqual(t, len(words), textworld.MaxCommandWords)
		}
		res = step.Result
	})
}
