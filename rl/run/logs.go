package run

import (
	"bytes"
	"encoding/json"
	"fmt"

	"arew/engine"
)

// MaxLogBytes caps a log a resumed run reads back (a 10,000-update
// metrics.jsonl is ~20 MB).
const MaxLogBytes = 1 << 30

// KeptLines reads the JSON-lines log at path and returns the lines keep
// accepts, joined, in order: what a resumed run writes back before it
// appends (the lines of the updates its checkpoint set holds; those after
// it are written again). A last line without its newline, a write a kill
// cut short, is dropped. An error of keep names the file.
func KeptLines(path string, keep func(line []byte) (bool, error)) ([]byte, error) {
	data, err := engine.ReadFile(path, MaxLogBytes)
	if err != nil {
		return nil, err
	}
	var kept []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			continue
		}
		ok, err := keep(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if ok {
			kept = append(kept, line...)
		}
	}
	return kept, nil
}

// ReadRecords reads the JSON-lines log at path (KeptLines) as records of
// one kind, keeping those keep accepts (nil: every one): the records, and
// their lines joined.
func ReadRecords[T any](path string, keep func(T) bool) ([]T, []byte, error) {
	var out []T
	lines, err := KeptLines(path, func(line []byte) (bool, error) {
		var r T
		if err := json.Unmarshal(line, &r); err != nil || keep != nil && !keep(r) {
			return false, err
		}
		out = append(out, r)
		return true, nil
	})
	return out, lines, err
}
