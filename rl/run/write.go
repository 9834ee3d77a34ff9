package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"arew/engine"
	"arew/rl"
)

// Every file of a run folder (a single run's, a study's, an ACT sweep's)
// is written through these: whole files atomically (engine.WriteFileAtomic:
// a temporary file fsynced and renamed, so a path holds the old content or
// the new, never a part), logs one JSON line per write; and read back
// through the bounded reader (engine.ReadFile).

// MaxConfigBytes caps a config file a run or a study reads (a run's
// config.json is ~3 KB).
const MaxConfigBytes = 1 << 20

// ReadConfigFile reads a config file through the bounded reader
// (engine.ReadFile): a regular file of at most MaxConfigBytes; a FIFO, a
// device or a larger file is refused at once, never read.
func ReadConfigFile(path string) ([]byte, error) { return engine.ReadFile(path, MaxConfigBytes) }

// ReadJSON decodes the file at path, read through the bounded reader
// (engine.ReadFile: a regular file of at most limit bytes), into v; a
// decoding error names the file.
func ReadJSON(path string, limit int64, v any) error {
	data, err := engine.ReadFile(path, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return engine.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteJSON writes v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFile(path, append(data, '\n'))
}

// JSONL appends one JSON object per line to a file.
type JSONL struct{ f *os.File }

// CreateJSONL creates (or truncates) path for JSONL.
func CreateJSONL(path string) (*JSONL, error) { return openJSONL(path, os.O_CREATE|os.O_TRUNC) }

// AppendJSONL opens an existing path for JSONL, appending after what it
// holds (a resumed run's logs).
func AppendJSONL(path string) (*JSONL, error) { return openJSONL(path, os.O_APPEND) }

func openJSONL(path string, flag int) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &JSONL{f}, nil
}

// Write appends v as one line, in one write call, so a crash loses at most
// the last line and never garbles an earlier one. A record holding NaN or
// ±Inf where a plain number is due (a loss, a gradient norm) is a training
// that diverged, and is reported as such (wrapping rl.ErrDiverged).
func (j *JSONL) Write(v any) error {
	data, err := json.Marshal(v)
	var bad *json.UnsupportedValueError
	if errors.As(err, &bad) {
		return fmt.Errorf("%w: a non-finite value (%s) in its %s record (try a lower learning rate)",
			rl.ErrDiverged, bad.Str, filepath.Base(j.f.Name()))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", j.f.Name(), err)
	}
	if _, err := j.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", j.f.Name(), err)
	}
	return nil
}

// Close closes the file.
func (j *JSONL) Close() error { return j.f.Close() }
