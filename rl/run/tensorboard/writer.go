package tensorboard

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Writer appends events to one event file.
type Writer struct {
	f   *os.File
	buf *bufio.Writer
	now func() time.Time
}

// Create makes dir and a new event file in it, named from the time now and
// the host, and writes its version event.
func Create(dir string) (*Writer, error) { return create(dir, time.Now) }

func create(dir string, now func() time.Time) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("tensorboard: %w", err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	t := now()
	name := fmt.Sprintf("events.out.tfevents.%d.%s", t.Unix(), host)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("tensorboard: %w", err)
	}
	w := &Writer{f: f, buf: bufio.NewWriter(f), now: now}
	if err := w.write(versionEvent(seconds(t))); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Scalars writes one event at step holding every finite scalar (none:
// nothing is written).
func (w *Writer) Scalars(step int64, scalars []Scalar) error {
	ev, ok := scalarEvent(seconds(w.now()), step, scalars)
	if !ok {
		return nil
	}
	return w.write(ev)
}

func (w *Writer) write(event []byte) error {
	if err := writeRecord(w.buf, event); err != nil {
		return fmt.Errorf("tensorboard: %w", err)
	}
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("tensorboard: %w", err)
	}
	return nil
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	if err := w.buf.Flush(); err != nil {
		w.f.Close()
		return fmt.Errorf("tensorboard: %w", err)
	}
	return w.f.Close()
}

func seconds(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }
