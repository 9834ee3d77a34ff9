package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"arew/engine"
	"arew/rl"
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
// does not say which code made the numbers. Its folder <DIR>/<key>/
// holds
//
//	entry.json   the key, the code version, the config, and every file's
//	             path, size and SHA-256
//	files/       the cell folder's files
//
// written to a temporary folder and renamed into place, entry.json last.
// A reader trusts nothing it has not checked: an entry whose entry.json
// does not decode, or names another key, code or config, or a path
// outside the cell's folder, or whose files are missing or of another
// size or hash, is ignored (Fetch says why) and the cell runs again.
type Cache struct {
	Dir  string
	Code string // the code version every key includes
}

const (
	cacheEntryFile = "entry.json"
	cacheFilesDir  = "files"
)

// cacheEntry is an entry's entry.json.
type cacheEntry struct {
	Key    string          `json:"key"`
	Code   string          `json:"code"`
	Config json.RawMessage `json:"config"`
	Files  []cacheFile     `json:"files"`
}

// cacheFile is one file of a cell's folder.
type cacheFile struct {
	Path   string `json:"path"` // slash-separated, under the cell's folder
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

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
// checking each against entry.json as it copies. It reports false and no
// error when there is no entry; an entry it cannot trust is an error
// saying why, and leaves dir removed.
func (c *Cache) Fetch(key string, canon []byte, dir string) (bool, error) {
	at := filepath.Join(c.Dir, key)
	data, err := engine.ReadFile(filepath.Join(at, cacheEntryFile), MaxSummaryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(at); errors.Is(serr, fs.ErrNotExist) {
			return false, nil
		}
	}
	if err != nil {
		return false, err
	}
	var e cacheEntry
	if err := rl.DecodeStrict(data, &e); err != nil {
		return false, fmt.Errorf("%s: %v", cacheEntryFile, err)
	}
	var config bytes.Buffer
	if err := json.Compact(&config, e.Config); err != nil || e.Key != key || e.Code != c.Code || !bytes.Equal(config.Bytes(), canon) {
		return false, fmt.Errorf("%s names another key, code version or config", cacheEntryFile)
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	for _, f := range e.Files {
		if err := fetchFile(f, filepath.Join(at, cacheFilesDir), dir); err != nil {
			os.RemoveAll(dir)
			return false, err
		}
	}
	return true, os.MkdirAll(dir, 0o755)
}

// fetchFile copies f from the entry's files to dir, refusing a path
// outside dir and a content of another size or hash.
func fetchFile(f cacheFile, from, dir string) error {
	rel := filepath.FromSlash(f.Path)
	if !filepath.IsLocal(rel) || f.Size < 0 {
		return fmt.Errorf("%s: a file outside the cell's folder: %q", cacheEntryFile, f.Path)
	}
	src, size, err := engine.OpenRegular(filepath.Join(from, rel), f.Size)
	if err != nil {
		return err
	}
	defer src.Close()
	if size != f.Size {
		return fmt.Errorf("%s is %d bytes, not %d", f.Path, size, f.Size)
	}
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return engine.WriteFileAtomic(dst, 0o644, func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(src, f.Size+1))
		switch {
		case err != nil:
			return err
		case n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256:
			return fmt.Errorf("%s differs from its record in %s", f.Path, cacheEntryFile)
		}
		return nil
	})
}

// Store puts the files of the cell folder dir into the cache under key
// (replacing an entry a reader ignored): copied into a temporary folder
// with entry.json written last, then renamed into place.
func (c *Cache) Store(key string, canon []byte, dir string) (err error) {
	tmp, err := os.MkdirTemp(c.Dir, ".tmp-"+key[:12]+"-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	e := cacheEntry{Key: key, Code: c.Code, Config: canon}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		f, err := storeFile(path, filepath.Join(tmp, cacheFilesDir, rel))
		f.Path = filepath.ToSlash(rel)
		e.Files = append(e.Files, f)
		return err
	})
	if err != nil {
		return err
	}
	if err := WriteJSON(filepath.Join(tmp, cacheEntryFile), e); err != nil {
		return err
	}
	at := filepath.Join(c.Dir, key)
	if err := os.RemoveAll(at); err != nil {
		return err
	}
	return os.Rename(tmp, at)
}

// storeFile copies the regular file path to dst and records its size and
// hash.
func storeFile(path, dst string) (cacheFile, error) {
	var f cacheFile
	src, _, err := engine.OpenRegular(path, engine.MaxCheckpointBytes)
	if err != nil {
		return f, err
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return f, err
	}
	h := sha256.New()
	err = engine.WriteFileAtomic(dst, 0o644, func(w io.Writer) error {
		f.Size, err = io.Copy(io.MultiWriter(w, h), src)
		return err
	})
	f.SHA256 = hex.EncodeToString(h.Sum(nil))
	return f, err
}
