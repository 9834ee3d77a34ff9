//go:build long

package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hostile-load test: AREW_HOSTILE=1 go test -tags long -run
// 'Hostile|SecondSignal' -v ./cmd/envserver (.ci/run's envserver block runs
// it so, alone; without AREW_HOSTILE the tests skip, so that the generic
// run of the long tests does not put latency bounds beside CPU-heavy
// packages). It starts the command on 127.0.0.1:0 and, for a
// bounded time with a bounded number of requests, lets hostile clients
// send huge and infeasible configurations, new configurations at the
// bounds, slow bodies, malformed JSON, unknown and foreign tokens, and
// fill their episode slots, while a well-behaved client plays FloDial
// episodes. It asserts that the heap in use stays bounded and that the
// well-behaved client is always served, within generous latency bounds.
// Every request goes to 127.0.0.1; the clients differ by their loopback
// source address (127.0.0.2, …), the unit of the per-client limit.

const (
	hostileFor     = 12 * time.Second
	maxHeapInUse   = 384 << 20 // bytes: tasks ≤ 64 MiB, episodes, buffers, GC slack
	maxGoodLatency = 3 * time.Second
	maxGoodP99     = 1500 * time.Millisecond
)

// needHostile skips unless AREW_HOSTILE is set (see the file's comment).
func needHostile(t *testing.T) {
	if os.Getenv("AREW_HOSTILE") == "" {
		t.Skip("set AREW_HOSTILE=1 to run the hostile-load tests (.ci/run does, alone)")
	}
}

// clientFrom is an HTTP client whose connections come from the loopback
// address src (127.0.0.x).
func clientFrom(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}}
}

// statuses counts the statuses of one kind of hostile request.
type statuses struct {
	mu sync.Mutex
	m  map[string]map[int]int
}

func (s *statuses) add(kind string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[kind] == nil {
		s.m[kind] = map[int]int{}
	}
	s.m[kind][code]++
}

func TestHostileLoad(t *testing.T) {
	needHostile(t)
	base, stop := startServer(t, "-read-timeout", "2s", "-max-per-client", "256", "-max-episodes", "1024")
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), hostileFor)
	defer cancel()
	var wg sync.WaitGroup
	got := &statuses{m: map[string]map[int]int{}}
	var unexpected atomic.Value
	expect := func(kind string, code int, allowed ...int) {
		got.add(kind, code)
		if !slices.Contains(allowed, code) {
			unexpected.Store(fmt.Sprintf("%s: status %d, want one of %v", kind, code, allowed))
		}
	}
	hostile := func(src string, f func(c *http.Client, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clientFrom(src)
			for i := 0; ctx.Err() == nil && i < 5000; i++ {
				f(c, i)
			}
		}()
	}

	// Configurations past the bounds, and infeasible ones: 400, cheaply.
	hostile("127.0.0.10", func(c *http.Client, i int) {
		cfgs := []string{`{"Particles": 65536, "Dims": 12}`, `{"Dims": 12, "Focus": 6, "Movies": 16, "MinInformative": 110880}`,
			`{"ScoreSpread": 0}`, `{"Particles": 16385}`, `{"particles": 64}`, `{"Particles": 64, "Particles": 65}`}
		code, _ := send(c, "POST", base+"/reset", fmt.Sprintf(`{"task": "pe-g-s3", "config": %s}`, cfgs[i%len(cfgs)]), nil)
		expect("config past the bounds", code, 400)
	})
	// New configurations at the bounds, each built once (≤ 1 MiB each):
	// served, or refused when this client's slots or the task budget are
	// full.
	hostile("127.0.0.11", func(c *http.Client, i int) {
		code, _ := send(c, "POST", base+"/reset", fmt.Sprintf(`{"task": "pe-f-d8", "config": {"Particles": 4096, "Seed": %d}}`, i+1), nil)
		expect("new configuration at the bounds", code, 200, 429, 503)
	})
	// One client filling its slots (and never closing): 429 past its limit.
	hostile("127.0.0.12", func(c *http.Client, i int) {
		code, _ := send(c, "POST", base+"/reset", `{"task": "telecom-solo"}`, nil)
		expect("slot filling", code, 200, 429)
	})
	// Unknown ids, guessed tokens, malformed JSON, unclean paths.
	hostile("127.0.0.13", func(c *http.Client, i int) {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		id := fmt.Sprintf("ep-%d", rng.IntN(1000))
		code, _ := send(c, "POST", base+"/step", map[string]any{"episode_id": id, "token": fmt.Sprintf("%026d", rng.Uint64()), "action": "q1"}, nil)
		expect("unknown token", code, 404)
		code, _ = send(c, "GET", base+fmt.Sprintf("/state?episode_id=%s&token=x", id), nil, nil)
		expect("unknown token", code, 404)
		code, _ = send(c, "POST", base+"/step", `{"episode_id": "a", "episode_id": "b", "token": "x", "action": "q1"}`, nil)
		expect("duplicate key", code, 400)
		code, _ = send(c, "POST", base+"//reset", `{"task": "mediq"}`, nil)
		expect("unclean path", code, 404)
	})
	// Slow bodies: a few bytes, then silence; the server must cut each
	// connection at its read timeout (2 s), not hold it for a minute.
	var slowCut []time.Duration
	var slowMu sync.Mutex
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(fmt.Sprintf("127.0.0.%d", 20+k))}}
				conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
				if err != nil {
					unexpected.Store("slow body dial: " + err.Error())
					return
				}
				t0 := time.Now()
				fmt.Fprintf(conn, "POST /reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"task\": ")
				conn.SetReadDeadline(time.Now().Add(30 * time.Second))
				io.Copy(io.Discard, conn) // until the server answers and closes
				slowMu.Lock()
				slowCut = append(slowCut, time.Since(t0))
				slowMu.Unlock()
				conn.Close()
			}
		}()
	}
	// A foreign client stepping the well-behaved client's episodes with
	// its own tokens.
	var goodIDs sync.Map // id → struct{}
	var foreignTok string
	{
		var e episode
		code, err := send(clientFrom("127.0.0.14"), "POST", base+"/reset", `{"task": "flodial-easy"}`, &e)
		require.NoError(t, err)
		require.Equal(t, 200, code)
		foreignTok = e.Token
	}
	hostile("127.0.0.14", func(c *http.Client, i int) {
		goodIDs.Range(func(k, _ any) bool {
			code, _ := send(c, "POST", base+"/step", map[string]any{"episode_id": k, "token": foreignTok, "action": "q1"}, nil)
			expect("foreign token", code, 404)
			code, _ = send(c, "POST", base+"/close", map[string]any{"episode_id": k, "token": foreignTok}, nil)
			expect("foreign token", code, 404)
			return false
		})
		time.Sleep(time.Millisecond)
	})

	// The heap, sampled.
	var peakHeap atomic.Uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peakHeap.Load() {
				peakHeap.Store(ms.HeapInuse)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()

	// The well-behaved client: whole FloDial episodes, closed at the end.
	good := clientFrom("127.0.0.2")
	var lat []time.Duration
	timed := func(method, path string, body, out any) int {
		t0 := time.Now()
		code, err := send(good, method, base+path, body, out)
		lat = append(lat, time.Since(t0))
		require.NoError(t, err)
		return code
	}
	episodes := 0
	rng := rand.New(rand.NewPCG(1, 2))
	for ctx.Err() == nil {
		var e episode
		require.Equal(t, 200, timed("POST", "/reset", map[string]any{"task": "flodial-easy", "index": episodes}, &e))
		goodIDs.Store(e.EpisodeID, struct{}{})
		first := e
		for !e.Done {
			move := fmt.Sprintf("q%d", rng.IntN(12))
			if e.Observation.Turn.Kind == "BT" {
				move = "1 1 1 1 1 1"
			}
			require.Equal(t, 200, timed("POST", "/step", map[string]any{"episode_id": first.EpisodeID, "token": first.Token, "action": move}, &e))
		}
		require.Equal(t, 200, timed("POST", "/close", map[string]any{"episode_id": first.EpisodeID, "token": first.Token}, nil))
		goodIDs.Delete(first.EpisodeID)
		episodes++
	}
	wg.Wait()

	assert.Nil(t, unexpected.Load(), "a hostile request got an undocumented status")
	slices.Sort(lat)
	p50, p99, worst := lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	t.Logf("well-behaved client: %d episodes, %d requests: p50 %v, p99 %v, max %v", episodes, len(lat), p50, p99, worst)
	t.Logf("hostile requests by kind and status: %v", got.m)
	slices.Sort(slowCut)
	require.NotEmpty(t, slowCut)
	t.Logf("slow bodies: %d connections cut after %v (median) to %v (max)", len(slowCut), slowCut[len(slowCut)/2], slowCut[len(slowCut)-1])
	t.Logf("peak heap in use %.1f MiB", float64(peakHeap.Load())/(1<<20))
	assert.Positive(t, episodes)
	assert.Less(t, p99, maxGoodP99)
	assert.Less(t, worst, maxGoodLatency)
	assert.Less(t, slowCut[len(slowCut)-1], 10*time.Second, "a slow body is cut at the read timeout")
	assert.Less(t, peakHeap.Load(), uint64(maxHeapInUse))
	assert.Positive(t, got.m["slot filling"][429], "the slot filler met its limit")
}

// cpu is the process's CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
}

// TestHostileProbe re-runs the probe's measurements and logs them (the
// numbers in docs/envserver.md, "Bounds"); its assertions are the bounds,
// generously.
func TestHostileProbe(t *testing.T) {
	needHostile(t)
	base, stop := startServer(t)
	defer stop()
	c := clientFrom("127.0.0.3")

	// 1. 200 PE resets at the worst configuration allowed, each a new
	// configuration (a new seed), then closed.
	h0 := heapInUse()
	var peak float64
	var eps []episode
	codes := map[int]int{}
	for i := range 200 {
		var e episode
		code, err := send(c, "POST", base+"/reset", fmt.Sprintf(`{"task": "pe-f-d8", "config": {"Particles": 2730, "Dims": 12, "Seed": %d}}`, i+1), &e)
		require.NoError(t, err)
		codes[code]++
		if code == 200 {
			eps = append(eps, e)
		}
		if i%20 == 19 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, float64(ms.HeapInuse)/(1<<20))
		}
	}
	hLive := heapInUse()
	for _, e := range eps {
		code, err := send(c, "POST", base+"/close", map[string]any{"episode_id": e.EpisodeID, "token": e.Token}, nil)
		require.NoError(t, err)
		require.Equal(t, 200, code)
	}
	hAfter := heapInUse()
	t.Logf("200 PE resets at the worst config (Particles 2730, Dims 12, new seed each): statuses %v; heap in use %.1f MiB before, %.1f MiB with them live (peak sampled %.1f), %.1f MiB after closing",
		codes, h0, hLive, peak, hAfter)
	assert.Less(t, peak, 200.0)
	assert.Less(t, hAfter, 100.0)

	// 2. The CPU of the worst single requests.
	for _, cfg := range []string{
		`{"task": "pe-g-s3", "config": {"Particles": 65536, "Dims": 12, "Focus": 6, "Movies": 16, "MinInformative": 110880}}`,
		`{"task": "pe-g-s3", "config": {"Particles": 64, "ScoreSpread": 0.01}}`,
		`{"task": "pe-f-d8", "config": {"Particles": 64, "Dims": 12, "Movies": 16, "ScoreSpread": 0, "Seed": 5}}`,
		`{"task": "pe-g-s3", "config": {"Particles": 2978, "Dims": 11, "Focus": 5, "LikedMax": 11, "Movies": 3, "Queries": 10, "ScoreSpread": 2, "MinInformative": 300}}`,
		`{"task": "pe-f-d6", "config": {"Dims": 2, "LikedMin": 1, "LikedMax": 2, "Particles": 16384, "Movies": 16, "Queries": 10}}`,
	} {
		c0, w0 := cpu(), time.Now()
		var e map[string]any
		code, err := send(c, "POST", base+"/reset", cfg, &e)
		require.NoError(t, err)
		used := cpu() - c0
		t.Logf("one reset %s: status %d, CPU %v, wall %v %v", cfg, code, used, time.Since(w0), e["error"])
		assert.Less(t, used, time.Second)
	}

	// 3. A normal reset's latency while new configurations build.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b := clientFrom("127.0.0.4")
		for i := 0; ctx.Err() == nil; i++ {
			var e episode
			code, _ := send(b, "POST", base+"/reset", fmt.Sprintf(`{"task": "pe-f-d6", "config": {"Dims": 2, "LikedMin": 1, "LikedMax": 2, "Particles": 16384, "Seed": %d}}`, 1000+i), &e)
			if code == 200 {
				send(b, "POST", base+"/close", map[string]any{"episode_id": e.EpisodeID, "token": e.Token}, nil)
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	var lat []time.Duration
	for i := range 50 {
		var e episode
		t0 := time.Now()
		code, err := send(c, "POST", base+"/reset", map[string]any{"task": "flodial-easy", "index": i}, &e)
		lat = append(lat, time.Since(t0))
		require.NoError(t, err)
		require.Equal(t, 200, code)
		send(c, "POST", base+"/close", map[string]any{"episode_id": e.EpisodeID, "token": e.Token}, nil)
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	slices.Sort(lat)
	t.Logf("a normal reset while new configurations build: p50 %v, p90 %v, max %v", lat[len(lat)/2], lat[len(lat)*9/10], lat[len(lat)-1])
	assert.Less(t, lat[len(lat)-1], maxGoodLatency)
}

// TestSecondSignal runs the built command: with a request in flight (a
// slow body), SIGTERM starts a graceful shutdown that waits for it; a
// second signal exits at once.
func TestSecondSignal(t *testing.T) {
	needHostile(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "envserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	addrFile := filepath.Join(dir, "addr")
	var logs syncBuffer
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-addr-file", addrFile, "-grace", "60s", "-read-timeout", "60s")
	cmd.Stderr = &logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	var addr string
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
		return err == nil && addr != ""
	}, 30*time.Second, 10*time.Millisecond)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST /reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"task\": ")
	time.Sleep(200 * time.Millisecond) // the server has read the headers

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "again to exit at once") }, 10*time.Second, 10*time.Millisecond)
	select {
	case err := <-exited:
		require.Fail(t, "exited with a request in flight", "%v", err)
	case <-time.After(time.Second):
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case err := <-exited:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, 2, ee.ExitCode())
	case <-time.After(10 * time.Second):
		require.Fail(t, "no exit after the second signal")
	}
	assert.Contains(t, logs.String(), "exiting now")
}
