package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
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
			require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "mediq"}`, &res))
			id, token = res.EpisodeID, res.Token
		}
		body, err := json.Marshal(map[string]string{"episode_id": id, "token": token, "action": text})
		require.NoError(t, err)
		var step struct {
			Result
			Info StepInfo
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
