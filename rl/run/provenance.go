package run

// Provenance: what every run folder records beside its results, so a
// reader can tell where a number came from (commit, kernel set, CPU, wall
// time); the TensorBoard event files are run/tensorboard's.

import (
	"runtime"
	"runtime/debug"
	"time"

	"arew/kernels"
)

// Provenance is where and when a run (or a study) ran. Commit is the
// commit the binary's VCS stamp names, with "+dirty" when it was built
// from modified files; a binary without a stamp (go run, -buildvcs=false)
// records the git HEAD of the working directory it ran in instead, with
// "+dirty" when files differ from it (git status: what `go run` builds),
// or "unknown" where git or a checkout is missing.
type Provenance struct {
	Commit      string    `json:"commit"`
	KernelSet   string    `json:"kernel_set"` // kernels.Impl: avx512, avx2, neon or go
	CPU         string    `json:"cpu"`        // the CPU's name and the SIMD features the kernels look at
	Go          string    `json:"go"`
	OS          string    `json:"os"`
	Arch        string    `json:"arch"`
	CPUs        int       `json:"cpus"`
	GOMAXPROCS  int       `json:"gomaxprocs"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end,omitzero"`
	WallSeconds float64   `json:"wall_seconds,omitempty"`
	// ResumedAt is the update a run continued from, its checkpoint set's
	// (0: it started from the beginning); Start and WallSeconds are then
	// this attempt's.
	ResumedAt int `json:"resumed_at_update,omitempty"`
	// Cached are the cells a sweep's attempt took from a result cache
	// (Sweep, Cache) instead of running them.
	Cached []CachedCell `json:"cached,omitempty"`
}

// Collect describes this process, started at start.
func Collect(start time.Time) Provenance {
	return Provenance{Commit: gitCommit(), KernelSet: kernels.Impl(), CPU: kernels.CPUFeatures(),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Start: start.UTC().Round(time.Second)}
}

// Finish records the end and the wall time since Start.
func (p *Provenance) Finish(end time.Time, wall time.Duration) {
	p.End = end.UTC().Round(time.Second)
	p.WallSeconds = wall.Round(time.Millisecond).Seconds()
}

// gitCommit is the binary's stamped commit (stampedCommit), else HEAD of
// the working directory's checkout (checkout), else "unknown"; "+dirty"
// when the files it names were modified.
func gitCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if rev, modified := stampedCommit(bi.Settings); rev != "" {
			return withDirty(rev, modified)
		}
	}
	head, dirty, _, err := checkout()
	if err != nil {
		return "unknown"
	}
	return withDirty(head, dirty)
}

func withDirty(commit string, dirty bool) string {
	if dirty {
		return commit + "+dirty"
	}
	return commit
}

// stampedCommit is the commit a build's VCS stamp names ("" without a
// stamp) and whether it was built with modified files.
func stampedCommit(settings []debug.BuildSetting) (rev string, modified bool) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}
