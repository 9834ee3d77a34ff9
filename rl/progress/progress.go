package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// IsTerminal reports whether w is a terminal: an *os.File whose mode is a
// character device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Meter tracks one phase of total steps. It is not safe for concurrent use.
type Meter struct {
	w        io.Writer
	label    string
	total    int
	terminal bool
	start    time.Time
	now      func() time.Time
	status   string // the status line on screen (terminal), or ""
}

// New starts a meter for total steps now, writing to w (nil: nothing).
func New(w io.Writer, label string, total int) *Meter {
	if w == nil {
		w = io.Discard
	}
	m := &Meter{w: w, label: label, total: total, terminal: IsTerminal(w), now: time.Now}
	m.start = m.now()
	return m
}

// Elapsed is the time since the meter started.
func (m *Meter) Elapsed() time.Duration { return m.now().Sub(m.start) }

// Status describes done of total steps: "12/80, 1m02s elapsed, ETA 5m40s".
func (m *Meter) Status(done int) string {
	el := m.Elapsed()
	eta := "ETA ?"
	switch {
	case done >= m.total:
		eta = "done"
	case done > 0:
		left := time.Duration(float64(el) * float64(m.total-done) / float64(done))
		eta = "ETA " + Duration(left)
	}
	return fmt.Sprintf("%d/%d, %s elapsed, %s", done, m.total, Duration(el), eta)
}

// Tick records done steps; on a terminal it rewrites the status line as
// "<label> <status>  <detail>". Elsewhere it prints nothing.
func (m *Meter) Tick(done int, detail string) {
	s := m.label + " " + m.Status(done)
	if detail != "" {
		s += "  " + detail
	}
	if !m.terminal {
		return
	}
	fmt.Fprint(m.w, "\r\x1b[K"+s)
	m.status = s
}

// Line prints text with the progress after done steps appended, as a
// permanent line; on a terminal the status line below it shows done
// steps (without the detail of the step just finished).
func (m *Meter) Line(done int, text string) {
	st := m.Status(done)
	if m.status != "" {
		m.status = m.label + " " + st
	}
	m.Printf("%s  [%s]\n", text, st)
}

// Printf prints a permanent text (it should end in a newline): on a
// terminal the status line is erased first and drawn again below it.
func (m *Meter) Printf(format string, args ...any) {
	if m.status != "" {
		fmt.Fprint(m.w, "\r\x1b[K")
	}
	fmt.Fprintf(m.w, format, args...)
	if m.status != "" {
		fmt.Fprint(m.w, m.status)
	}
}

// Finish erases the status line (terminal); the meter prints no more.
func (m *Meter) Finish() {
	if m.status != "" {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.status = ""
	}
	m.terminal = false
}

// Duration writes d rounded to the second, as 42s, 3m05s or 1h02m03s.
func Duration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 0 {
		s = 0
	}
	h, m, sec := s/3600, s/60%60, s%60
	var b strings.Builder
	switch {
	case h > 0:
		fmt.Fprintf(&b, "%dh%02dm%02ds", h, m, sec)
	case m > 0:
		fmt.Fprintf(&b, "%dm%02ds", m, sec)
	default:
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}
