package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callFrom is call with the request's remote address set (the unit of the
// per-client limit) and its context.
func callFrom(t testing.TB, h http.Handler, ctx context.Context, remote, method, path string, body any, out any) int {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(raw))
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.True(t, json.Valid(rec.Body.Bytes()), rec.Body.String())
	if out != nil {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
	}
	return rec.Code
}

// TestTokens: an episode answers only calls that carry its token; a wrong
// token answers exactly as an unknown id; client-chosen ids may repeat
// (no 409 reveals that one exists).
func TestTokens(t *testing.T) {
	h := testServer(t, nil).Handler()
	var a, b Result
	require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "flodial-easy", "episode_id": "same"}`, &a))
	require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "flodial-easy", "episode_id": "same"}`, &b))
	require.Equal(t, "same", a.EpisodeID)
	require.Equal(t, "same", b.EpisodeID)
	require.NotEqual(t, a.Token, b.Token)
	assert.Len(t, a.Token, 26) // 128 bits, base32

	// b's token on a's id and vice versa reach each one's own episode.
	var sa, sb State
	require.Equal(t, 200, call(t, h, "POST", "/step", act(a, "q1"), nil))
	require.Equal(t, 200, call(t, h, "GET", stateURL(a), nil, &sa))
	require.Equal(t, 200, call(t, h, "GET", stateURL(b), nil, &sb))
	assert.Equal(t, 1, sa.StepCount)
	assert.Equal(t, 0, sb.StepCount)

	// A wrong token is an unknown episode, word for word.
	unknown := Result{EpisodeID: "nope", Token: a.Token}
	wrong := Result{EpisodeID: "same", Token: "AAAAAAAAAAAAAAAAAAAAAAAAAA"}
	for _, c := range []struct {
		method string
		path   func(Result) string
		body   func(Result) any
	}{
		{"POST", func(Result) string { return "/step" }, func(r Result) any { return act(r, "q1") }},
		{"GET", stateURL, func(Result) any { return nil }},
		{"POST", func(Result) string { return "/close" }, func(r Result) any { return closeBody(r) }},
	} {
		var e1, e2 map[string]string
		assert.Equal(t, 404, call(t, h, c.method, c.path(wrong), c.body(wrong), &e1))
		assert.Equal(t, 404, call(t, h, c.method, c.path(unknown), c.body(unknown), &e2))
		assert.Equal(t, e1["error"], strings.ReplaceAll(e2["error"], `"nope"`, `"same"`))
	}
	// Nothing happened to a.
	require.Equal(t, 200, call(t, h, "GET", stateURL(a), nil, &sa))
	assert.Equal(t, 1, sa.StepCount)
	require.Equal(t, 200, call(t, h, "POST", "/close", closeBody(a), nil))
	assert.Equal(t, 404, call(t, h, "GET", stateURL(a), nil, nil))
	assert.Equal(t, 200, call(t, h, "GET", stateURL(b), nil, nil))
}

// TestPerClientLimit: one remote IP cannot hold more than its share of
// the slots; another client still gets in; the refusal builds nothing.
func TestPerClientLimit(t *testing.T) {
	s := testServer(t, func(c *Config) { c.MaxEpisodes = 8; c.MaxEpisodesPerClient = 3 })
	h := s.Handler()
	ctx := context.Background()
	var mine []Result
	for i := range 3 {
		var r Result
		require.Equal(t, 200, callFrom(t, h, ctx, fmt.Sprintf("10.0.0.1:%d", 1000+i), "POST", "/reset", map[string]any{"task": "telecom-solo"}, &r))
		mine = append(mine, r)
	}
	var e map[string]string
	require.Equal(t, 200, call(t, h, "GET", "/tasks", nil, nil)) // the defaults, built once
	before := s.store.TaskBytes()
	// A new configuration from the full client: refused before its build.
	assert.Equal(t, http.StatusTooManyRequests, callFrom(t, h, ctx, "10.0.0.1:2000", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 4000}}, &e))
	assert.Contains(t, e["error"], "per client")
	assert.Equal(t, before, s.store.TaskBytes(), "nothing built for a refused reset")
	assert.Equal(t, 200, callFrom(t, h, ctx, "10.0.0.2:1000", "POST", "/reset", map[string]any{"task": "telecom-solo"}, nil))
	// Closing one frees a slot for that client.
	require.Equal(t, 200, callFrom(t, h, ctx, "10.0.0.1:1", "POST", "/close", closeBody(mine[0]), nil))
	assert.Equal(t, 200, callFrom(t, h, ctx, "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "telecom-solo"}, nil))
	assert.Equal(t, 4, s.Live())
}

// TestTaskBudget: the configured tasks held, cached or pinned by live
// episodes, stay within MaxTaskBytes: unpinned ones are dropped, and a new
// configuration that cannot fit beside the pinned ones is a 503.
func TestTaskBudget(t *testing.T) {
	const budget = 2 << 20
	s := testServer(t, func(c *Config) { c.MaxTaskBytes = budget })
	h := s.Handler()
	// About 0.54 MB each: three fit, a fourth does not.
	cfg := func(seed int) map[string]any {
		return map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 4096, "Seed": seed}}
	}
	var live []Result
	status := 0
	for seed := 1; seed < 20; seed++ {
		var r Result
		if status = call(t, h, "POST", "/reset", cfg(seed), &r); status != 200 {
			break
		}
		live = append(live, r)
		assert.LessOrEqual(t, s.store.TaskBytes(), int64(budget))
	}
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.NotEmpty(t, live)
	assert.Less(t, len(live), 10)
	// A configuration already held still resets.
	assert.Equal(t, 200, call(t, h, "POST", "/reset", cfg(1), nil))
	// Once the episodes close, their tasks stay cached within the budget,
	// and new configurations displace them.
	for _, r := range live {
		require.Equal(t, 200, call(t, h, "POST", "/close", closeBody(r), nil))
	}
	for seed := 100; seed < 120; seed++ {
		var r Result
		require.Equal(t, 200, call(t, h, "POST", "/reset", cfg(seed), &r))
		require.Equal(t, 200, call(t, h, "POST", "/close", closeBody(r), nil))
		assert.LessOrEqual(t, s.store.TaskBytes(), int64(budget))
	}
	assert.Positive(t, s.store.TaskBytes())
}

// blockBuilds makes the store's builds of configurations named in block
// wait until release is closed, and reports each build's start on started.
func blockBuilds(s *Server, release chan struct{}) (started chan string) {
	started = make(chan string, 16)
	s.store.buildHook = func(key string) {
		if bytes.Contains([]byte(key), []byte("Particles")) {
			started <- key
			<-release
		}
	}
	return started
}

// TestBuildOutsideTheLock: while a new configuration builds, resets of
// built ones go through; concurrent requests for one configuration build
// it once.
func TestBuildOutsideTheLock(t *testing.T) {
	s := testServer(t, nil)
	h := s.Handler()
	require.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "flodial-easy"}`, nil)) // built
	release := make(chan struct{})
	started := blockBuilds(s, release)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = call(t, h, "POST", "/reset", `{"task": "pe-f-d8", "config": {"Particles": 100}}`, nil)
		}()
	}
	<-started // the build is under way, and blocked
	for i := range 5 {
		assert.Equal(t, 200, call(t, h, "POST", "/reset", map[string]any{"task": "flodial-easy", "index": i}, nil))
	}
	close(release)
	wg.Wait()
	assert.Equal(t, []int{200, 200, 200, 200}, codes)
	assert.Empty(t, started, "one build for four requests")
}

// TestClientBuilds: one client has at most maxClientBuilds new
// configurations building at once; others still build theirs.
func TestClientBuilds(t *testing.T) {
	s := testServer(t, nil)
	h := s.Handler()
	require.Equal(t, 200, call(t, h, "GET", "/tasks", nil, nil)) // the defaults, built
	release := make(chan struct{})
	started := blockBuilds(s, release)
	var wg sync.WaitGroup
	for i := range maxClientBuilds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Equal(t, 200, callFrom(t, h, context.Background(), "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 200 + i}}, nil))
		}()
	}
	for range maxClientBuilds {
		<-started
	}
	var e map[string]string
	assert.Equal(t, http.StatusTooManyRequests, callFrom(t, h, context.Background(), "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 300}}, &e))
	assert.Contains(t, e["error"], "being built")
	// Asking for a configuration being built is not a new build.
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.Equal(t, 200, callFrom(t, h, context.Background(), "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 200}}, nil))
	}()
	close(release)
	wg.Wait()
	assert.Equal(t, 200, callFrom(t, h, context.Background(), "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 300}}, nil))
}

// TestClientLeaves: a request whose client goes away while its task builds
// returns at once and gives its slot back; a build nobody waits for any
// more is not run.
func TestClientLeaves(t *testing.T) {
	s := testServer(t, func(c *Config) { c.MaxBuilds = 1; c.MaxEpisodesPerClient = 2 })
	h := s.Handler()
	require.Equal(t, 200, call(t, h, "GET", "/tasks", nil, nil)) // the defaults, built
	release := make(chan struct{})
	started := blockBuilds(s, release)
	ctx1, cancel1 := context.WithCancel(context.Background())
	done1 := make(chan int)
	go func() {
		done1 <- callFrom(t, h, ctx1, "10.0.0.1:1", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 101}}, nil)
	}()
	<-started // build 1 holds the only build slot
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan int)
	go func() {
		done2 <- callFrom(t, h, ctx2, "10.0.0.1:2", "POST", "/reset", map[string]any{"task": "pe-f-d8", "config": map[string]any{"Particles": 102}}, nil)
	}()
	// Both clients leave: their requests return while the builds wait.
	cancel2()
	assert.Equal(t, statusClientGone, <-done2)
	cancel1()
	assert.Equal(t, statusClientGone, <-done1)
	// Their slots are free again (limit 2 per client).
	for i := range 2 {
		assert.Equal(t, 200, callFrom(t, h, context.Background(), "10.0.0.1:3", "POST", "/reset", map[string]any{"task": "telecom-solo", "index": i}, nil))
	}
	close(release)
	// Build 2 had no one left waiting: it is abandoned, not run (it would
	// have reported its start).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A third configuration builds only after build 2's slot is free.
		assert.Equal(t, 200, call(t, h, "POST", "/reset", `{"task": "pe-f-d8", "config": {"Particles": 103}}`, nil))
	}()
	assert.Contains(t, <-started, "103")
	wg.Wait()
	assert.Empty(t, started)
}

// TestCheckJSON covers the strict reader's corners.
func TestCheckJSON(t *testing.T) {
	fields := map[string]bool{"a": true, "b": true}
	for _, ok := range []string{`{}`, `{"a": 1, "b": {"a": 1, "b": [1, {"a": 2}, {"a": 3}]}}`, `{"a": [{"x": 1}, {"x": 2}]}`, `[]`, `3`, `{"a": 1} {"a": 1, "a": 2}`, `{"a": `} {
		assert.NoError(t, checkJSON([]byte(ok), fields), ok)
	}
	for _, bad := range []string{`{"a": 1, "a": 2}`, `{"a": {"x": 1, "x": 2}}`, `{"a": [{"x": 1, "x": 1}]}`, `{"A": 1}`, `{"c": 1}`, `{"b": {}, "b": {}}`} {
		assert.Error(t, checkJSON([]byte(bad), fields), bad)
	}
	assert.NoError(t, checkJSON([]byte(`{"A": {"x": 1}}`), nil))
}

// TestSizeOf: shared objects count once, cycles end, slices count by
// capacity.
func TestSizeOf(t *testing.T) {
	type node struct {
		next *node
		data []float64
	}
	a := &node{data: make([]float64, 1000)}
	a.next = a
	assert.InDelta(t, 8000, sizeOf(a), 100)
	pair := []*node{a, a}
	assert.InDelta(t, 8000, sizeOf(pair), 200)
	assert.InDelta(t, 8000+5, sizeOf(map[string]any{"hello": a.data}), 200)
	assert.Zero(t, sizeOf(nil))
}

// TaskBytes is the estimated heap of the configured tasks held (cached or
// pinned by live episodes).
func (s *store) TaskBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskBytes
}
