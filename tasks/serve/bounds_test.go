package serve

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"arew/tasks"
)

// atBounds are, per registered task, configurations with every field that
// drives the cost of a task or of a reset at its validated bound (several
// per task where the bounds trade off); tooBig are just past one bound.
var atBounds = []struct {
	task, config string
}{
	{"flodial-easy", `{"Faults": 16, "Questions": 32, "Rounds": 16, "Levels": 10, "Echo": true, "Style": "careful", "Critiques": "per-fault"}`},
	{"flodial-hard", `{"Faults": 16, "Questions": 32, "Rounds": 16, "Levels": 10, "PUnknown": 0.9, "Critiques": "consistent"}`},
	{"mediq", `{"Diagnoses": 32, "Findings": 48, "Hallmarks": 48, "InitialFacts": 48, "Rounds": 16, "Levels": 10, "PGraded": 1, "Critiques": "consistent"}`},
	{"mediq", `{"Diagnoses": 32, "Findings": 48, "Hallmarks": 2, "InitialFacts": 0, "Rounds": 16, "PUnknownOther": 0}`},
	{"pe-f-d6", `{"Dims": 2, "LikedMin": 1, "LikedMax": 2, "Particles": 16384, "Movies": 16, "Queries": 10, "GuessLevels": 10, "ScoreMax": 9, "Critiques": "consistent"}`},
	{"pe-f-d8", `{"Dims": 12, "Particles": 2730, "Movies": 16, "Queries": 10, "GuessLevels": 10, "ScoreMax": 9, "MinInformative": 20}`},
	{"pe-g-s2", `{"Dims": 12, "Focus": 2, "Particles": 2730, "Movies": 8, "Queries": 10, "GuessLevels": 10, "ScoreMax": 9, "ScoreSpread": 3, "MinInformative": 300}`},
	{"pe-g-s3", `{"Dims": 12, "Focus": 6, "Particles": 2730, "Movies": 2, "Queries": 10, "ScoreMax": 9, "ScoreSpread": 100}`},
	{"pe-g-s3", `{"Dims": 11, "Focus": 5, "LikedMax": 11, "Particles": 2978, "Movies": 3, "Queries": 10, "ScoreSpread": 2, "MinInformative": 300}`},
	{"telecom-solo", `{"MaxTurns": 40, "Lines": 8, "PTwo": 1, "LateTurn": 40, "Critiques": "consistent"}`},
	{"telecom-dual", `{"MaxTurns": 40, "Lines": 8, "PTwo": 1}`},
}

var tooBig = []struct {
	task, config string
}{
	{"flodial-easy", `{"Faults": 17}`},
	{"flodial-easy", `{"Questions": 33}`},
	{"flodial-easy", `{"Rounds": 17}`},
	{"mediq", `{"Diagnoses": 33}`},
	{"mediq", `{"Findings": 49}`},
	{"mediq", `{"Rounds": 17}`},
	{"pe-f-d8", `{"Particles": 16385}`},
	{"pe-f-d8", `{"Particles": 65536, "Dims": 12}`},
	{"pe-f-d8", `{"Particles": 2731, "Dims": 12}`},
	{"pe-g-s3", `{"Dims": 12, "Focus": 6, "Movies": 16, "Particles": 64}`},
	{"pe-g-s3", `{"Particles": 64, "Dims": 12, "Focus": 2, "Movies": 9}`},
	{"pe-g-s3", `{"Particles": 64, "ScoreSpread": 0}`},
	{"pe-g-s3", `{"Particles": 64, "MinInformative": 1320}`},
	{"pe-g-s3", `{"Particles": 64, "Dims": 12, "Focus": 6, "Movies": 2, "MinInformative": 924}`},
	{"telecom-solo", `{"MaxTurns": 41}`},
	{"telecom-solo", `{"Lines": 9}`},
	{"telecom-solo", `{"LateTurn": 41}`},
}

// maxResetBytes is the bound of docs/envserver.md: a configured task at the
// bounds holds at most this much, and a reset allocates at most this much.
const maxResetBytes = 1 << 20

// allocated is the number of bytes f allocates, averaged over runs.
func allocated(runs int, f func()) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / float64(runs)
}

// reset is what the server does for POST /reset on a built task.
func resetOn(t testing.TB, task tasks.Task, face *tasks.TextFace, index int) *tasks.TextEpisode {
	ep, err := task.NewEpisode(tasks.Train, index)
	require.NoError(t, err)
	te := tasks.NewTextEpisode(face, ep)
	_ = te.Observation()
	return te
}

// TestResetCostAtBounds: every task at its config bounds holds at most
// 1 MiB (estimated with sizeOf, checked against the heap; its build
// allocates at most 2 MiB) and a reset on it allocates at most 1 MiB. The
// CPU side is BenchmarkResetAtBounds.
func TestResetCostAtBounds(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range atBounds {
		seen[c.task] = true
		t.Run(c.task+c.config, func(t *testing.T) {
			var task tasks.Task
			var face *tasks.TextFace
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			build := allocated(1, func() {
				var err error
				task, face, err = buildTask(c.task, json.RawMessage(c.config))
				require.NoError(t, err)
			})
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			size := sizeOf(task) + sizeOf(face)
			assert.LessOrEqual(t, build, float64(2*maxResetBytes), "bytes allocated by the build")
			assert.LessOrEqual(t, size, int64(maxResetBytes), "task size")
			assert.LessOrEqual(t, held, int64(maxResetBytes), "task heap")
			// The estimate is within a factor of two of the heap the build
			// keeps (the heap also holds the task's lazily built parts).
			assert.Greater(t, 2*size, held, "estimate %d vs heap %d", size, held)
			i := 0
			per := allocated(20, func() { resetOn(t, task, face, i); i++ })
			assert.LessOrEqual(t, per, float64(maxResetBytes), "bytes per reset")
			t.Logf("task %d bytes (heap %d, built with %.0f allocated); reset %.0f bytes", size, held, build, per)
			runtime.KeepAlive(task)
		})
	}
	for _, name := range tasks.Names() {
		assert.True(t, seen[name], "no configuration at the bounds for %s", name)
	}
}

// TestLiveEpisodeAtBounds: a finished episode at the bounds (and at each
// task's defaults), played to the end by the random policy through its
// text face, keeps at most 128 KiB of its own beside its shared task, so
// MaxEpisodes live episodes hold at most MaxEpisodes · 128 KiB.
func TestLiveEpisodeAtBounds(t *testing.T) {
	const n, maxEpisodeBytes = 64, 128 << 10
	cases := append([]struct{ task, config string }{}, atBounds...)
	for _, name := range tasks.Names() {
		cases = append(cases, struct{ task, config string }{name, "{}"})
	}
	for _, c := range cases {
		t.Run(c.task+c.config, func(t *testing.T) {
			task, face, err := buildTask(c.task, json.RawMessage(c.config))
			require.NoError(t, err)
			p, err := task.Scripted(tasks.PolicySpec{Kind: "random"})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, 2))
			kept := make([]*tasks.TextEpisode, n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range kept {
				ep, err := task.NewEpisode(tasks.Train, i)
				require.NoError(t, err)
				te := tasks.NewTextEpisode(face, ep)
				for !te.Done() {
					a, err := p.Act(ep, rng)
					require.NoError(t, err)
					_, err = te.StepText(face.Format(a))
					require.NoError(t, err)
				}
				kept[i] = te
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

// TestConfigPastBounds: one past a bound is a 400 at /reset.
func TestConfigPastBounds(t *testing.T) {
	h := testServer(t, nil).Handler()
	for _, c := range tooBig {
		var e map[string]string
		assert.Equal(t, 400, call(t, h, "POST", "/reset", map[string]any{"task": c.task, "config": json.RawMessage(c.config)}, &e), "%s %s", c.task, c.config)
		assert.NotEmpty(t, e["error"])
	}
}

// BenchmarkResetAtBounds reports, per configuration at the bounds, the
// cost of a reset on the built task (ns/op, B/op) and of building the
// configuration, which a reset with a new configuration pays once
// (build-ns, build-B: the mean of 5 builds). Run:
// go test ./tasks/serve -run '^$' -bench ResetAtBounds -benchmem
func BenchmarkResetAtBounds(b *testing.B) {
	for _, c := range atBounds {
		b.Run(c.task+c.config, func(b *testing.B) {
			var task tasks.Task
			var face *tasks.TextFace
			const builds = 5
			t0 := time.Now()
			buildBytes := allocated(builds, func() {
				var err error
				task, face, err = buildTask(c.task, json.RawMessage(c.config))
				require.NoError(b, err)
			})
			buildNs := float64(time.Since(t0).Nanoseconds()) / builds
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				resetOn(b, task, face, i)
				i++
			}
			b.ReportMetric(buildNs, "build-ns")
			b.ReportMetric(buildBytes, "build-B")
		})
	}
}
