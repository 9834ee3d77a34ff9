package act

import (
	"context"
	"fmt"
	"time"
)

// A pipeline run takes from minutes to an hour, so Run times each of its
// stages (the expert data, π_θ0, D_critic, each row's training and each
// row's evaluation) into its report, and reports each as it ends to the
// context's stage log, if it has one: a study gives each run a log that
// prints to its console, so a long study can be watched stage by stage.

// StageTime is one stage of a run: its wall time and the CPU time the
// process spent meanwhile (every thread's; absent where the platform
// gives none). With runs side by side (-jobs > 1) the process's CPU time
// holds the other runs' too: a stage's CPU-s then measures the machine's
// load during it, not the stage's own cost.
type StageTime struct {
	Stage      string   `json:"stage"`
	Seconds    float64  `json:"seconds"`
	CPUSeconds *float64 `json:"cpu_seconds,omitempty"`
}

type stageLogKey struct{}

// WithStageLog returns ctx carrying f: Run (and Transfer, through Run)
// calls f with one line as each of its stages ends, naming the stage, the
// environment and the seed, the stage's wall and CPU time and the run's so
// far.
func WithStageLog(ctx context.Context, f func(line string)) context.Context {
	return context.WithValue(ctx, stageLogKey{}, f)
}

// stageClock times the stages of one run.
type stageClock struct {
	log         func(string)
	who         string
	start, last time.Time
	cpu0, cpuAt float64
	cpuOK       bool
	stages      []StageTime
}

func newStageClock(ctx context.Context, cfg Config) *stageClock {
	f, _ := ctx.Value(stageLogKey{}).(func(string))
	now := time.Now()
	c, ok := processCPU()
	return &stageClock{log: f, who: fmt.Sprintf("%s seed %d", cfg.Env, cfg.Seed), start: now, last: now, cpu0: c, cpuAt: c, cpuOK: ok}
}

// done records the stage that ran since the previous one ended, reports
// it and returns its wall time in seconds.
func (s *stageClock) done(stage string) float64 {
	now := time.Now()
	c, _ := processCPU()
	st := StageTime{Stage: stage, Seconds: now.Sub(s.last).Seconds()}
	cpu := ""
	if s.cpuOK {
		d := c - s.cpuAt
		st.CPUSeconds = &d
		cpu = fmt.Sprintf(" (%.0f CPU-s; run %.0f CPU-s)", d, c-s.cpu0)
	}
	s.stages = append(s.stages, st)
	s.last, s.cpuAt = now, c
	if s.log != nil {
		s.log(fmt.Sprintf("%s: %s done in %.0f s, run %.0f s%s", s.who, stage, st.Seconds, now.Sub(s.start).Seconds(), cpu))
	}
	return st.Seconds
}
