package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// post sends a JSON body over a real connection and decodes the reply.
func post(c *http.Client, url string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := c.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// randomMove is a valid FloDial-Easy move: a random question, or a random
// belief of six levels (not all zero), written as a model might.
func randomMove(turn *TurnInfo, rng *rand.Rand) string {
	if turn.Kind == "AS" {
		return fmt.Sprintf("I will ask <answer>q%d</answer>", rng.IntN(12))
	}
	lv := make([]string, 6)
	for i := range lv {
		lv[i] = fmt.Sprint(rng.IntN(4))
	}
	lv[rng.IntN(6)] = "3"
	return "My belief: " + strings.Join(lv, " ")
}

// BenchmarkLoad is the bounded load test: b.N FloDial-Easy episodes played
// by 4 or 64 concurrent clients over loopback HTTP (reset, ten steps,
// close), the server in the same process. It reports episodes/s, the p50
// and p99 latency of a step as the client sees it, and the heap in use
// after. Run: go test ./tasks/serve -run '^$' -bench Load -benchtime 4000x
func BenchmarkLoad(b *testing.B) {
	for _, clients := range []int{4, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { load(b, clients) })
	}
}

func load(b *testing.B, loadClients int) {
	s := testServer(b, func(c *Config) { c.MaxEpisodes = 4 * loadClients })
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients}, Timeout: 30 * time.Second}
	var next atomic.Int64
	lat := make([][]time.Duration, loadClients)
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < loadClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(9, uint64(c)))
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				var res Result
				if err := post(client, srv.URL+"/reset", map[string]any{"task": "flodial-easy", "index": i}, &res); err != nil {
					failed.Store(err)
					return
				}
				first := res
				for !res.Done {
					t0 := time.Now()
					if err := post(client, srv.URL+"/step", act(first, randomMove(res.Observation.Turn, rng)), &res); err != nil {
						failed.Store(err)
						return
					}
					lat[c] = append(lat[c], time.Since(t0))
				}
				var closed map[string]any
				if err := post(client, srv.URL+"/close", closeBody(first), &closed); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	q := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) }
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "episodes/s")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "steps/s")
	b.ReportMetric(q(0.5), "p50-step-µs")
	b.ReportMetric(q(0.99), "p99-step-µs")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkLiveEpisodeMemory holds 4096 live FloDial-Easy episodes (the
// default limit) and reports the heap each one costs.
func BenchmarkLiveEpisodeMemory(b *testing.B) {
	const n = 4096
	for b.Loop() {
		s := testServer(b, func(c *Config) { c.MaxEpisodes = n })
		h := s.Handler()
		call(b, h, "POST", "/reset", `{"task": "flodial-easy"}`, nil) // the task itself
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 1; i < n; i++ {
			call(b, h, "POST", "/reset", map[string]any{"task": "flodial-easy", "index": i}, nil)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(n-1), "bytes/episode")
		runtime.KeepAlive(s)
	}
}
