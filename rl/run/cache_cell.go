package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"arew/engine"
)

// What a sweep's cell that is a single run needs from a result cache
// (Cache): its config as a key, and what the run did, read back from the
// folder the cache filled.

// ForCache is c as a cache keys it: its Init checkpoint by content
// ("sha256:<hex>") instead of by path, since two studies place the same
// base in folders of their own.
func (c Config) ForCache() (Config, error) {
	if c.Model.Init != "" {
		data, err := engine.ReadFile(c.Model.Init, engine.MaxCheckpointBytes)
		if err != nil {
			return c, err
		}
		sum := sha256.Sum256(data)
		c.Model.Init = "sha256:" + hex.EncodeToString(sum[:])
	}
	return c, nil
}

// Finished reads what the finished run in dir did from its logs: the
// Loop's fields under "What the run has done" as its Run left them.
func Finished(dir string) (*Loop, error) {
	metrics, evals, samples, _, err := readLogs(dir, -1)
	if err != nil {
		return nil, err
	}
	l := &Loop{Dir: dir}
	l.setRecord(metrics, evals, samples)
	if len(l.Curve) == 0 {
		return nil, fmt.Errorf("%s: no evaluation in training", filepath.Join(dir, EvalFile))
	}
	return l, nil
}
