package rl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"arew/engine"
)

// A checkpoint set is the files of one saved state in one folder, each
// written atomically (WriteFile, model.Save), and then ManifestFile, which
// names every file with the update it holds and its SHA-256. The manifest
// is written last, so it is the truth: a process killed while the files
// were being rewritten leaves files that disagree with it, and
// ReadCheckpointSet refuses them (a set is never read mixed).

// ManifestFile is the manifest of a checkpoint set.
const ManifestFile = "manifest.json"

// manifestFormat names the manifest's layout.
const manifestFormat = "arew.checkpoint-set/1"

// maxManifestBytes caps a manifest (a real one is under 2 KB).
const maxManifestBytes = 1 << 20

// Manifest is a checkpoint set's ManifestFile.
type Manifest struct {
	Format string `json:"format"`
	Update int    `json:"update"` // RL updates done
	// Info is the writer's description (run name, status).
	Info    map[string]string `json:"info,omitempty"`
	Files   []ManifestEntry   `json:"files"`
	Written time.Time         `json:"written"`
}

// ManifestEntry is one file of a set.
type ManifestEntry struct {
	Name   string `json:"name"` // relative to the set's folder
	Update int    `json:"update"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Has reports whether the set holds a file name.
func (m *Manifest) Has(name string) bool {
	return slices.ContainsFunc(m.Files, func(e ManifestEntry) bool { return e.Name == name })
}

// WriteManifest hashes the files of dir just written for update (names
// relative to dir) and writes the manifest naming them, last and
// atomically, completing the set.
func WriteManifest(dir string, update int, info map[string]string, names []string) error {
	m := Manifest{Format: manifestFormat, Update: update, Info: info, Written: time.Now().UTC()}
	for _, name := range names {
		data, err := engine.ReadFile(filepath.Join(dir, name), engine.MaxCheckpointBytes)
		if err != nil {
			return fmt.Errorf("checkpoint manifest: %w", err)
		}
		sum := sha256.Sum256(data)
		m.Files = append(m.Files, ManifestEntry{Name: name, Update: update, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(data))})
	}
	return WriteJSON(filepath.Join(dir, ManifestFile), m)
}

// ReadManifest reads and checks the manifest of the set in dir (its
// format, and file names that stay inside dir).
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := engine.ReadFile(path, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("checkpoint set: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("checkpoint set %s: %w", path, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("checkpoint set %s: format %q, want %q", path, m.Format, manifestFormat)
	}
	if m.Update < 0 {
		return nil, fmt.Errorf("checkpoint set %s: update %d < 0", path, m.Update)
	}
	for _, e := range m.Files {
		if e.Name == "" || e.Name != filepath.Base(e.Name) || e.Name == "." || e.Name == ".." || e.Name == ManifestFile {
			return nil, fmt.Errorf("checkpoint set %s: bad file name %q", path, e.Name)
		}
	}
	return &m, nil
}

// ReadCheckpointSet reads the manifest of dir and every file it names,
// and refuses the set, naming the first disagreement, unless each file is
// there with the manifest's size and SHA-256 and holds the manifest's
// update. It returns the manifest and the files' bytes by name.
func ReadCheckpointSet(dir string) (*Manifest, map[string][]byte, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	files := make(map[string][]byte, len(m.Files))
	for _, e := range m.Files {
		if e.Update != m.Update {
			return nil, nil, fmt.Errorf("checkpoint set %s is mixed: %s holds update %d, the manifest update %d", dir, e.Name, e.Update, m.Update)
		}
		if _, dup := files[e.Name]; dup {
			return nil, nil, fmt.Errorf("checkpoint set %s: %s is named twice", dir, e.Name)
		}
		data, err := engine.ReadFile(filepath.Join(dir, e.Name), engine.MaxCheckpointBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("checkpoint set %s: %w", dir, err)
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != e.Bytes || hex.EncodeToString(sum[:]) != e.SHA256 {
			return nil, nil, fmt.Errorf("checkpoint set %s disagrees with its manifest: %s is not the file of update %d "+
				"(size %d, want %d, or a different SHA-256): it was rewritten after the manifest, likely by a run killed while saving",
				dir, e.Name, m.Update, len(data), e.Bytes)
		}
		files[e.Name] = data
	}
	return m, files, nil
}
