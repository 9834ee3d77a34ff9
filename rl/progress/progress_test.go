package progress

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock advances by step at every reading after the first.
func fakeClock(step time.Duration) func() time.Time {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := -1
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n) * step)
	}
}

func newTest(terminal bool, total int) (*Meter, *bytes.Buffer) {
	var buf bytes.Buffer
	m := New(&buf, "rl", total)
	m.terminal = terminal
	m.now = fakeClock(10 * time.Second)
	m.start = m.now()
	return m, &buf
}

func TestStatusEstimatesTheTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		done int
		want string
	}{
		{"nothing done", 0, "0/4, 10s elapsed, ETA ?"},
		{"one of four", 1, "1/4, 10s elapsed, ETA 30s"},
		{"all", 4, "4/4, 10s elapsed, done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTest(false, 4)
			assert.Equal(t, tc.want, m.Status(tc.done))
		})
	}
}

func TestPlainOutputHasNoControls(t *testing.T) {
	m, buf := newTest(false, 2)
	m.Tick(1, "update 1")
	m.Line(1, "update 1 done")
	m.Printf("header\n")
	m.Finish()
	assert.Equal(t, "update 1 done  [1/2, 20s elapsed, ETA 20s]\nheader\n", buf.String())
	assert.NotContains(t, buf.String(), "\r")
	assert.NotContains(t, buf.String(), "\x1b")
}

func TestTerminalRewritesTheStatusLine(t *testing.T) {
	m, buf := newTest(true, 2)
	m.Tick(1, "a")
	m.Line(1, "eval")
	m.Finish()
	want := "\r\x1b[Krl 1/2, 10s elapsed, ETA 10s  a" + // the status line
		"\r\x1b[Keval  [1/2, 20s elapsed, ETA 20s]\n" + // erased, the permanent line…
		"\r\x1b[Krl 1/2, 20s elapsed, ETA 20s" + // …and the status line again, up to date
		"\r\x1b[K" // erased at the end
	assert.Equal(t, want, buf.String())
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, IsTerminal(w), "a pipe")
	assert.False(t, IsTerminal(&bytes.Buffer{}), "not a file")
	if f, err := os.Open(os.DevNull); err == nil {
		defer f.Close()
		assert.True(t, IsTerminal(f), "/dev/null is a character device")
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {-time.Second, "0s"}, {1499 * time.Millisecond, "1s"}, {65 * time.Second, "1m05s"},
		{3723 * time.Second, "1h02m03s"},
	} {
		assert.Equal(t, tc.want, Duration(tc.d), "%v", tc.d)
	}
}

// A Tee is a terminal when its console is one, and logs the permanent
// lines only: no status line, no escape sequence.
func TestTeeLogsThePermanentLines(t *testing.T) {
	var console, log bytes.Buffer
	m, _ := newTest(true, 2)
	tw := Tee(&console, &log)
	assert.False(t, IsTerminal(tw), "a buffer is no terminal")
	m.w = &tee{w: &console, log: &log, terminal: true}
	assert.True(t, IsTerminal(m.w))
	m.Tick(1, "a")
	m.Line(1, "eval")
	m.Printf("note\n")
	m.Finish()
	assert.Equal(t, "eval  [1/2, 20s elapsed, ETA 20s]\nnote\n", log.String())
	assert.Contains(t, console.String(), "\r\x1b[Krl 1/2")
}
