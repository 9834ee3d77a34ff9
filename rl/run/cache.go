package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"arew/engine"
)

// A Cache is a folder of finished sweep cells (cmd/train -cache DIR), so
// that a cell two sweeps share (a study's arm that another preset already
// ran with the same config and seed) runs once. It is off unless asked
// for: a sweep without one runs every cell, as the determinism tests need.
//
// An entry is keyed by the SHA-256 of the code version (CodeVersion: the
// commit, Go, the platform and the kernel set) and the cell's canonical
// config (Canonical: its JSON with sorted keys, the seed included, no
// folder of its own, a checkpoint by its content), since a config alone
// does not say which code made the numbers; a single run's config also
// names the CPU and its cores (Config.Version), so its entries serve that
// machine type. The entry <DIR>/<key>/ is a
// checkpoint set (checkpoint.go) of the cell folder's files, under
// files/, whose manifest's info holds the key, the code version and the
// config: written beside, then moved in, manifest last. A reader trusts
// nothing it has not checked (ReadCheckpointSet): an entry whose manifest
// does not decode, names another key, code or config, or a path outside
// the entry, or whose files are missing or of another size or hash, is
// ignored (Fetch says why) and the cell runs again.
type Cache struct {
	Dir  string
	Code string // the code version every key includes
}

// cacheFilesDir holds the cell's files in an entry.
const cacheFilesDir = "files"

// OpenCache makes the cache folder dir if needed, keyed by this process's
// CodeVersion; code that no commit names is an InputError.
func OpenCache(dir string) (*Cache, error) {
	code, err := CodeVersion()
	if err != nil {
		return nil, InputErrorf("-cache: the code version is unknown (%v): commit, or run without -cache", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("-cache: %w", err)
	}
	return &Cache{Dir: dir, Code: code}, nil
}

// Canonical is config as JSON with every object's keys sorted and no
// spaces, the numbers as written: two configs that decode alike have
// the same bytes.
func Canonical(config any) ([]byte, error) {
	data, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// Key is the entry key of a cell of config under c's code version, with
// the config's canonical JSON.
func (c *Cache) Key(config any) (key string, canon []byte, err error) {
	if canon, err = Canonical(config); err != nil {
		return "", nil, fmt.Errorf("cache key: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(c.Code))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), canon, nil
}

// Fetch fills dir, removed first, with the files of the entry of key,
// checked against its manifest. It reports false and no error when there
// is no entry; an entry it cannot trust is an error saying why.
func (c *Cache) Fetch(key string, canon []byte, dir string) (bool, error) {
	at := filepath.Join(c.Dir, key)
	if _, err := os.Lstat(at); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	m, files, err := ReadCheckpointSet(at)
	if err != nil {
		return false, err
	}
	if m.Info["key"] != key || m.Info["code"] != c.Code || m.Info["config"] != string(canon) {
		return false, fmt.Errorf("its manifest names another key, code version or config")
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	for _, e := range m.Files {
		rel, err := filepath.Rel(cacheFilesDir, e.Name)
		if err != nil || !filepath.IsLocal(rel) {
			return false, fmt.Errorf("%s: a file outside %s/", e.Name, cacheFilesDir)
		}
		if err := writeUnder(dir, rel, files[e.Name]); err != nil {
			return false, err
		}
	}
	return true, os.MkdirAll(dir, 0o755)
}

// Store puts the files of the cell folder dir into the cache under key,
// replacing an entry a reader ignored.
func (c *Cache) Store(key string, canon []byte, dir string) error {
	at := filepath.Join(c.Dir, key)
	if err := os.RemoveAll(at); err != nil {
		return err
	}
	info := map[string]string{"key": key, "code": c.Code, "config": string(canon)}
	return SaveCheckpointSet(at, 0, info, func(next string) ([]string, error) {
		var names []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := engine.ReadFile(path, engine.MaxCheckpointBytes)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			names = append(names, filepath.Join(cacheFilesDir, rel))
			if err != nil {
				return err
			}
			return writeUnder(next, names[len(names)-1], data)
		})
		return names, err
	})
}

// writeUnder writes data to dir/rel, making its folders.
func writeUnder(dir, rel string, data []byte) error {
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteFile(path, data)
}
