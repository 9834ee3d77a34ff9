package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// IsTerminal reports whether w is a terminal: an *os.File whose mode is a
// character device, or a writer that says it writes to one (Tee).
func IsTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
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
	fmt.Fprint(m.w, eraseLine+s)
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
		fmt.Fprint(m.w, eraseLine)
	}
	fmt.Fprintf(m.w, format, args...)
	if m.status != "" {
		fmt.Fprint(m.w, eraseLine+m.status)
	}
}

// eraseLine starts every write of a status line (and nothing else), so a
// Tee can leave status lines out of its log.
const eraseLine = "\r\x1b[K"

// Tee writes everything to w and, to log, all but the status lines: the
// console's permanent text, for a run folder's console.log. It is a
// terminal when w is one, so a Meter on it still draws its status line.
func Tee(w, log io.Writer) io.Writer { return &tee{w: w, log: log, terminal: IsTerminal(w)} }

type tee struct {
	w, log   io.Writer
	terminal bool
}

func (t *tee) IsTerminal() bool { return t.terminal }

func (t *tee) Write(p []byte) (int, error) {
	if !strings.HasPrefix(string(p), eraseLine) {
		if _, err := t.log.Write(p); err != nil {
			return 0, err
		}
	}
	return t.w.Write(p)
}

// Finish erases the status line (terminal); the meter prints no more.
func (m *Meter) Finish() {
	if m.status != "" {
		fmt.Fprint(m.w, eraseLine)
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
