package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"arew/rl"
	"arew/rl/progress"
)

// A sweep is a job of many runs, its cells, done one after another, each
// in its own folder under the sweep's: rl/study's arms × seeds of single
// runs, ACT's environments × seeds of pipeline runs. Its folder holds
//
//	study.json        the sweep's whole config (SweepFile)
//	provenance.json   one Provenance per attempt, the last this one's
//	console.log       what every attempt printed, without status lines
//	<cell folders>    each cell's own files
//
// beside what its owner writes at the end (summary, report, plots). A
// resumed sweep (Open with resume) must find the same config in
// study.json; it keeps the cells an earlier attempt completed
// (Cell.Kept), continues a cell whose folder holds a state to go on from
// (Sweep.Continue), and does every other cell again from an empty folder.
const (
	SweepFile   = "study.json"
	ConsoleFile = "console.log"
)

// MaxSummaryBytes caps a summary, report or provenance file a sweep reads
// back (a 4-arm, 5-seed study's summary is ~100 KB, an ACT run's report
// ~20 KB).
const MaxSummaryBytes = 64 << 20

// Cell is one run of a sweep.
type Cell struct {
	Key  string // its name in progress lines and errors: "arew seed 2"
	Dir  string // its folder
	Kept bool   // an earlier attempt completed it: it is not run again
	// Run runs the cell into Dir, or with cont continues it there from the
	// checkpoint set an earlier attempt left (Sweep.Continue), counting its
	// steps on p; it records what the cell gave, even when it fails.
	Run func(ctx context.Context, p *Progress, cont bool) error
	// Config, if set, is the cell's config for a result cache (Cache):
	// everything that decides its files but the code, seed included, no
	// folder of its own (nil: the cell is not cached). It is called once
	// the sweep's Start has run.
	Config func() (any, error)
	// Restore takes back what the cell gives from its folder, which a
	// cache filled instead of Run.
	Restore func() error
}

// Sweep runs its Cells in order into their folders under Dir, one after
// another, or up to n at once under a context from WithJobs(ctx, n).
type Sweep struct {
	Kind   string    // what it is, in its lines and errors: "study", "act study"
	Dir    string    // its folder
	Config any       // its whole config, SweepFile
	Cells  []Cell    // in the order they run
	Steps  int       // the steps of one cell, for the meter
	Out    io.Writer // progress lines (nil: none), also kept in console.log
	Header string    // the first line each attempt prints
	// Continue, if set, reports whether an earlier attempt left in a
	// cell's folder a checkpoint set that the cell's Run continues from,
	// and the steps done then. The folder of any other cell that is not
	// Kept is removed before a resumed sweep starts.
	Continue func(dir string) (steps int, ok bool)
	// Start, if set, runs once the folder is ready, before the first cell,
	// printing to out (a study's baselines and base).
	Start func(ctx context.Context, out io.Writer) error
	// Save, if set, runs after each cell that ran (a study's summary.json
	// so far).
	Save func() error
	// Finish writes the sweep's outputs at the end, whatever happened,
	// with its status (complete, interrupted or failed) and the attempts
	// provenance.json holds, the last one this one's.
	Finish func(status string, attempts []Provenance) error

	resume bool
	cache  *Cache       // the context's (WithCache), or nil
	cached []CachedCell // the cells this attempt took from it
}

// Open makes the sweep's folder, which must not exist or be empty, and
// writes its config there; with resume it checks instead that the folder
// holds a sweep of the same config: its SweepFile, decoded as Config's
// type (unknown fields refused), encodes as Config does, so a file written
// with its fields in another order, or without fields added since (zero),
// still matches. Both are InputErrors. A sweep without a Config is an
// error, in either case, and nothing is written.
func (s *Sweep) Open(resume bool) error {
	if s.Config == nil {
		return fmt.Errorf("%s: no config to write or compare", s.Kind)
	}
	s.resume = resume
	path := filepath.Join(s.Dir, SweepFile)
	if !resume {
		if err := PrepareDir(s.Dir, false); err != nil {
			return err
		}
		return WriteJSON(path, s.Config)
	}
	data, err := ReadConfigFile(path)
	if err != nil {
		return InputErrorf("%s: resume: %v", s.Kind, err)
	}
	have := reflect.New(reflect.TypeOf(s.Config))
	if err := rl.DecodeStrict(data, have.Interface()); err != nil {
		return InputErrorf("%s: resume: %s: %v", s.Kind, path, err)
	}
	a, aerr := json.Marshal(have.Elem().Interface())
	b, berr := json.Marshal(s.Config)
	if err := errors.Join(aerr, berr); err != nil {
		return fmt.Errorf("%s: resume: %w", s.Kind, err)
	}
	if !bytes.Equal(a, b) {
		return InputErrorf("%s: resume: %s holds a different %s (its %s differs from this config)", s.Kind, s.Dir, s.Kind, SweepFile)
	}
	return nil
}

// Run runs the cells after Open. When ctx ends, the cell in progress
// stops (a run writes its checkpoint set) and Run returns ErrInterrupted;
// on any end Finish writes what the cells gave.
func (s *Sweep) Run(ctx context.Context) error {
	start := time.Now()
	from, todo := make([]int, len(s.Cells)), 0
	for i, c := range s.Cells {
		from[i] = -1
		if c.Kept {
			continue
		}
		todo++
		if !s.resume {
			continue
		}
		if s.Continue != nil {
			if n, ok := s.Continue(c.Dir); ok {
				from[i] = n
				continue
			}
		}
		if err := os.RemoveAll(c.Dir); err != nil {
			return fmt.Errorf("%s: resume: %w", s.Kind, err)
		}
	}
	attempts, err := s.startProvenance(start)
	if err != nil {
		return err
	}
	console, err := os.OpenFile(filepath.Join(s.Dir, ConsoleFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Kind, err)
	}
	defer console.Close()
	if s.Out == nil {
		s.Out = io.Discard
	}
	out := progress.Tee(s.Out, console)
	fmt.Fprintln(out, s.Header)
	if s.cache = cacheOf(ctx); s.cache != nil {
		fmt.Fprintf(out, "cache %s (code %s)\n", s.cache.Dir, s.cache.Code)
	}
	m := &sweepMeter{meter: progress.New(io.Discard, s.Kind, 0)}
	err = s.cells(ctx, out, m, todo, from)
	status := "complete"
	switch {
	case errors.Is(err, ErrInterrupted):
		status = "interrupted"
	case err != nil:
		status = "failed"
	}
	m.meter.Finish()
	attempts[len(attempts)-1].Cached = s.cached
	if werr := s.Finish(status, attempts); werr != nil && err == nil {
		err = werr
	}
	attempts[len(attempts)-1].Finish(time.Now(), time.Since(start))
	if werr := WriteJSON(filepath.Join(s.Dir, ProvenanceFile), attempts); werr != nil && err == nil {
		err = werr
	}
	return err
}

// cells runs Start and the cells, todo of them not Kept, up to jobs of
// them at once (WithJobs; one after another without it), taking them in
// order; from holds the steps a continued cell did before (−1: none). A
// cell that fails stops the others as an interrupt does (each keeps its
// checkpoint set), and the sweep returns that cell's error.
func (s *Sweep) cells(ctx context.Context, out io.Writer, m *sweepMeter, todo int, from []int) error {
	if s.Start != nil {
		if err := s.Start(ctx, out); err != nil {
			return err
		}
	}
	m.meter = progress.New(out, s.Kind, todo*s.Steps)
	var queue []int
	for i, c := range s.Cells {
		if c.Kept {
			m.meter.Printf("%s: complete in the previous attempt, kept\n", c.Key)
			continue
		}
		queue = append(queue, i)
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := stopCtx{inner, ctx}
	errs := make([]error, len(s.Cells))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(jobsOf(ctx), len(queue)) {
		wg.Go(func() {
			for stop.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= len(queue) {
					return
				}
				i := queue[k]
				if errs[i] = s.cell(stop, s.Cells[i], &Progress{sweep: m}, from[i]); errs[i] != nil {
					cancel()
					return
				}
			}
		})
	}
	wg.Wait()
	interrupted := next.Load() < int64(len(queue)) // a cell never started
	for _, err := range errs {
		switch {
		case errors.Is(err, ErrInterrupted):
			interrupted = true
		case err != nil:
			return err
		}
	}
	if interrupted {
		return ErrInterrupted
	}
	return nil
}

// stopCtx is the context the cells run under: it ends when the caller's
// does or when a cell fails (cancel). Err asks the caller's context first,
// so that one which ends through Err alone, as the tests' step-counting
// contexts do, still reaches the cells.
type stopCtx struct {
	context.Context
	caller context.Context
}

func (c stopCtx) Err() error {
	if err := c.caller.Err(); err != nil {
		return err
	}
	return c.Context.Err()
}

// cell runs (or continues from step from, or takes from the cache) one
// cell, counting its steps on p.
func (s *Sweep) cell(ctx context.Context, c Cell, p *Progress, from int) error {
	k, hit, err := s.fromCache(c, p, &from)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.Kind, c.Key, err)
	}
	if hit {
		p.count(s.Steps)
		p.Line(fmt.Sprintf("%s: from the cache, entry %s", c.Key, k.key))
		return s.save(p)
	}
	if from >= 0 {
		p.count(from)
		p.Printf("%s: continuing from its checkpoint set at update %d\n", c.Key, from)
	}
	t0 := time.Now()
	err = c.Run(ctx, p, from >= 0)
	if werr := s.save(p); werr != nil && err == nil {
		err = werr
	}
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, ErrInterrupted)):
		return ErrInterrupted
	case err != nil:
		return fmt.Errorf("%s: %s: %w", s.Kind, c.Key, err)
	}
	p.count(s.Steps - p.own)
	p.Line(fmt.Sprintf("%s: done in %s", c.Key, progress.Duration(time.Since(t0))))
	s.toCache(c, k, p)
	return nil
}

// save runs Save, if set, while no cell records its result (p.Locked).
func (s *Sweep) save(p *Progress) error {
	if s.Save == nil {
		return nil
	}
	var err error
	p.Locked(func() { err = s.Save() })
	return err
}

// startProvenance writes provenance.json: the attempts so far (a resume
// appends one), each where and when it ran.
func (s *Sweep) startProvenance(start time.Time) ([]Provenance, error) {
	var attempts []Provenance
	path := filepath.Join(s.Dir, ProvenanceFile)
	if s.resume {
		if err := ReadJSON(path, MaxSummaryBytes, &attempts); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, InputErrorf("%s: resume: %v", s.Kind, err)
		}
	}
	attempts = append(attempts, Collect(start))
	return attempts, WriteJSON(path, attempts)
}

// ContinuesRL is a Sweep's Continue for cells that are single runs: the
// run's folder holds a checkpoint set of RL to continue from, written
// after an update or an evaluation, or on an interrupt. A set of a run
// that completed (a kill just after it, before the sweep recorded it) is
// not: the run is done again.
func ContinuesRL(dir string) (int, bool) {
	m, err := ReadManifest(filepath.Join(dir, CheckpointDir))
	if err != nil || m.Info["phase"] != "rl" || m.Info["status"] == "complete" {
		return 0, false
	}
	return m.Update, true
}

// sweepMeter is a sweep's meter and the steps done over all its cells,
// shared by the cells under one lock, which is also the lock under which
// cells that run at once (WithJobs) record what they gave.
type sweepMeter struct {
	mu    sync.Mutex
	meter *progress.Meter
	done  int
}

// Progress is a sweep's meter as one cell sees it: the sweep's, and the
// steps this cell counted. Its methods are safe for concurrent use.
type Progress struct {
	sweep *sweepMeter
	own   int
}

// Step counts one step done, with what it did for the status line.
func (p *Progress) Step(detail string) {
	p.Locked(func() {
		p.own++
		p.sweep.done++
		p.sweep.meter.Tick(p.sweep.done, detail)
	})
}

// count counts n steps done at once (a cell continued, cached or ended
// short of the sweep's steps per cell).
func (p *Progress) count(n int) {
	p.Locked(func() {
		p.own += n
		p.sweep.done += n
	})
}

// Line prints a permanent line with the sweep's progress appended.
func (p *Progress) Line(text string) {
	p.Locked(func() { p.sweep.meter.Line(p.sweep.done, text) })
}

// Printf prints a permanent text, as progress.Meter's Printf.
func (p *Progress) Printf(format string, args ...any) {
	p.Locked(func() { p.sweep.meter.Printf(format, args...) })
}

// Locked runs f while no other cell records and the sweep does not save:
// a cell's Run records what it gave through it, since cells may run at
// once (WithJobs). f must not call p's other methods.
func (p *Progress) Locked(f func()) {
	m := p.sweep
	m.mu.Lock()
	defer m.mu.Unlock()
	f()
}
