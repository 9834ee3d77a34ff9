package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
