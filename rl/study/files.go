package study

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"arew/engine"
)

// writeFile writes data to path atomically (engine.WriteFileAtomic).
func writeFile(path string, data []byte) error {
	return engine.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeJSON writes v as indented JSON, atomically.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFile(path, append(data, '\n'))
}

// jsonl appends one JSON object per line to a file, each line in one
// write call, so a crash loses at most the last line.
type jsonl struct{ f *os.File }

func createJSONL(path string) (*jsonl, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	return &jsonl{f}, nil
}

func (j *jsonl) Write(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write %s: %w", j.f.Name(), err)
	}
	if _, err := j.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", j.f.Name(), err)
	}
	return nil
}

func (j *jsonl) Close() error { return j.f.Close() }
