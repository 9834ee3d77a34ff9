package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sweep cut in its second cell ends interrupted with what the first
// gave; resumed, it keeps the first, continues the second from what its
// folder holds, does the third again from an empty folder, and appends
// an attempt to provenance.json and console.log.
func TestSweepKeepsContinuesAndRedoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	cfg := map[string]int{"seeds": 3}
	var ran []string
	var statuses []string
	sweep := func(kept map[string]bool, stopIn string, cancel context.CancelFunc) *Sweep {
		s := &Sweep{Kind: "test sweep", Dir: dir, Config: cfg, Steps: 2, Header: "== test",
			Continue: func(d string) (int, bool) {
				_, err := os.Stat(filepath.Join(d, "partial"))
				return 1, err == nil
			},
			Finish: func(status string, attempts []Provenance) error {
				statuses = append(statuses, status)
				return nil
			}}
		for _, key := range []string{"a", "b", "c"} {
			s.Cells = append(s.Cells, Cell{Key: key, Dir: filepath.Join(dir, key), Kept: kept[key],
				Run: func(ctx context.Context, p *Progress, cont bool) error {
					ran = append(ran, key+map[bool]string{true: "+", false: ""}[cont])
					d := filepath.Join(dir, key)
					if entries, _ := os.ReadDir(d); len(entries) > 0 && !cont {
						t.Errorf("%s starts in a folder that is not empty", key)
					}
					require.NoError(t, os.MkdirAll(d, 0o755))
					p.Step(key)
					if key == stopIn {
						require.NoError(t, os.WriteFile(filepath.Join(d, "partial"), nil, 0o644))
						cancel()
						return ErrInterrupted
					}
					return nil
				}})
		}
		return s
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := sweep(nil, "b", cancel)
	require.NoError(t, first.Open(false))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "c"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c", "stale"), nil, 0o644))
	assert.ErrorIs(t, first.Run(ctx), ErrInterrupted)
	assert.Equal(t, []string{"a", "b"}, ran)

	ran = nil
	var out bytes.Buffer
	again := sweep(map[string]bool{"a": true}, "", nil)
	again.Out = &out
	require.NoError(t, again.Open(true))
	require.NoError(t, again.Run(context.Background()))
	assert.Equal(t, []string{"b+", "c"}, ran, "a kept, b continued, c from an empty folder")
	assert.Equal(t, []string{"interrupted", "complete"}, statuses)
	assert.Contains(t, out.String(), "a: complete in the previous attempt, kept")
	assert.Contains(t, out.String(), "b: continuing from its checkpoint set at update 1")
	var attempts []Provenance
	require.NoError(t, ReadJSON(filepath.Join(dir, ProvenanceFile), MaxSummaryBytes, &attempts))
	assert.Len(t, attempts, 2)
	console, err := os.ReadFile(filepath.Join(dir, ConsoleFile))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(console), "== test\n"))

	other := sweep(nil, "", nil)
	other.Config = map[string]int{"seeds": 4}
	var input *InputError
	assert.ErrorAs(t, other.Open(true), &input, "another config")
	assert.ErrorAs(t, sweep(nil, "", nil).Open(false), &input, "a folder that is not empty")
}

// A resumed sweep's study.json matches by what it decodes to: its keys in
// another order, or a field added since missing (zero), still match; a
// changed value or an unknown field does not.
func TestSweepOpenComparesDecodedConfigs(t *testing.T) {
	type config struct {
		A int   `json:"a"`
		B []int `json:"b,omitempty"`
		C bool  `json:"c"` // in no file below: added since
	}
	dir := t.TempDir()
	for file, same := range map[string]bool{`{"b": [2], "a": 1}`: true, `{"a": 1, "b": [2]}`: true, `{"b": [2]}`: false,
		`{"a": 1}`: false, `{"a": 2, "b": [2]}`: false, `{"a": 1, "b": [2], "d": 3}`: false} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, SweepFile), []byte(file), 0o644))
		err := (&Sweep{Kind: "test sweep", Dir: dir, Config: config{A: 1, B: []int{2}}}).Open(true)
		if same {
			assert.NoError(t, err, file)
		} else {
			var input *InputError
			assert.ErrorAs(t, err, &input, file)
		}
	}
}

// A sweep without a config is an error, resumed or not, and leaves no
// folder.
func TestSweepOpenWithoutConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	for _, resume := range []bool{false, true} {
		assert.ErrorContains(t, (&Sweep{Kind: "test sweep", Dir: dir}).Open(resume), "test sweep: no config", "resume %v", resume)
		assert.NoDirExists(t, dir)
	}
}

// Under WithJobs(ctx, 2) two cells run at once (each of the first two
// waits until the other has started), every cell runs once and is saved;
// a cell that fails stops the one running beside it as an interrupt does
// and starts no other, and the sweep returns the failure, not the
// interrupt.
func TestSweepRunsCellsAtOnce(t *testing.T) {
	for _, fail := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "s")
		var ran []string
		saves, status := 0, ""
		started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
		s := &Sweep{Kind: "test sweep", Dir: dir, Config: map[string]bool{"fail": fail}, Steps: 1,
			Save:   func() error { saves++; return nil },
			Finish: func(st string, _ []Provenance) error { status = st; return nil }}
		for _, key := range []string{"a", "b", "c", "d"} {
			s.Cells = append(s.Cells, Cell{Key: key, Dir: filepath.Join(dir, key),
				Run: func(ctx context.Context, p *Progress, _ bool) error {
					p.Locked(func() { ran = append(ran, key) })
					if ch, first := started[key]; first {
						close(ch)
						other := map[string]string{"a": "b", "b": "a"}[key]
						select {
						case <-started[other]:
						case <-time.After(20 * time.Second):
							return fmt.Errorf("%s ran alone", key)
						}
						if fail && key == "b" {
							return errors.New("b broke")
						}
						if fail {
							<-ctx.Done() // a runs until b's failure stops it
							return ErrInterrupted
						}
					}
					p.Step(key)
					return nil
				}})
		}
		require.NoError(t, s.Open(false))
		err := s.Run(WithJobs(context.Background(), 2))
		slices.Sort(ran)
		if !fail {
			require.NoError(t, err)
			assert.Equal(t, []string{"a", "b", "c", "d"}, ran)
			assert.Equal(t, 4, saves)
			assert.Equal(t, "complete", status)
			continue
		}
		assert.ErrorContains(t, err, "test sweep: b: b broke")
		assert.NotErrorIs(t, err, ErrInterrupted)
		assert.Equal(t, []string{"a", "b"}, ran, "no cell starts after a failure")
		assert.Equal(t, "failed", status)
	}
}
