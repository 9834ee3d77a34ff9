package serve

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"arew/tasks"
	_ "arew/tasks/all"
)

// call sends one request to h and decodes the JSON reply into out (if not
// nil); it returns the status.
func call(t testing.TB, h http.Handler, method, path string, body any, out any) int {
	t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"), rec.Body.String())
	require.True(t, json.Valid(rec.Body.Bytes()), rec.Body.String())
	if out != nil {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
	}
	return rec.Code
}

// shadow plays a scripted policy on a local token episode of the same
// instance, so a test can send the policy's moves as text.
type shadow struct {
	ep     tasks.Episode
	face   *tasks.TextFace
	policy tasks.Policy
	rng    *rand.Rand
}

func newShadow(t testing.TB, name string, config json.RawMessage, split tasks.Split, index int, kind string) *shadow {
	t.Helper()
	task, err := tasks.New(name, config)
	require.NoError(t, err)
	face, err := tasks.TextFaceOf(task)
	require.NoError(t, err)
	ep, err := task.NewEpisode(split, index)
	require.NoError(t, err)
	p, err := task.Scripted(tasks.PolicySpec{Kind: kind})
	require.NoError(t, err)
	return &shadow{ep: ep, face: face, policy: p, rng: rand.New(rand.NewPCG(1, uint64(index)))}
}

// move is the policy's next move as text; it plays it locally too.
func (s *shadow) move(t testing.TB) string {
	a, err := s.policy.Act(s.ep, s.rng)
	require.NoError(t, err)
	_, _, err = s.ep.Step(a)
	require.NoError(t, err)
	return "<answer>" + s.face.Format(a) + "</answer>"
}

// act is the body of a step of episode res.
func act(res Result, action any) map[string]any {
	return map[string]any{"episode_id": res.EpisodeID, "token": res.Token, "action": action}
}

// closeBody is the body of POST /close for episode res.
func closeBody(res Result) map[string]any {
	return map[string]any{"episode_id": res.EpisodeID, "token": res.Token}
}

// stateURL is the path of GET /state for episode res.
func stateURL(res Result) string {
	return "/state?" + url.Values{"episode_id": {res.EpisodeID}, "token": {res.Token}}.Encode()
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func testServer(t testing.TB, mod func(*Config)) *Server {
	t.Helper()
	cfg := DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	require.NoError(t, err)
	return s
}
