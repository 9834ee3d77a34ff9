package run

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"arew/engine"
	"arew/rl"
)

// A checkpoint set is the files of one saved state in one folder (a
// trainer's, rl.Trainer.WriteState; before RL, the policy's), each
// written atomically (WriteFile, model.Save), and ManifestFile, which
// names every file with the update it holds and its SHA-256.
// SaveCheckpointSet writes a new set beside the last one, in the folder's
// NextSetDir, the manifest last; only then does it move the files over the
// last set's, and the manifest after them. So the manifest in the folder
// is the truth at every moment: a process killed while it wrote the new
// set leaves NextSetDir without a manifest and the last set whole (the
// next read discards NextSetDir); one killed while it moved the files
// leaves NextSetDir's manifest (the next read finishes the move). And a
// set whose files disagree with its manifest for any other reason (a file
// replaced by hand) is refused by ReadCheckpointSet, never read mixed
// (TestCheckpointSetSurvivesAKill, TestReadRefusesABadSet).

// NextSetDir is the folder, inside a set's folder, where SaveCheckpointSet
// writes the next set before it replaces the last.
const NextSetDir = ".next"

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

// SaveCheckpointSet writes a set of update into dir, replacing the one
// there: write puts the files into the folder it is given (dir's
// NextSetDir) and returns their names; their manifest follows, then the
// files and the manifest move into dir. On an error the set in dir stands.
func SaveCheckpointSet(dir string, update int, info map[string]string, write func(next string) ([]string, error)) error {
	if err := recoverSet(dir); err != nil {
		return err
	}
	next := filepath.Join(dir, NextSetDir)
	if err := os.MkdirAll(next, 0o755); err != nil {
		return fmt.Errorf("checkpoint set: %w", err)
	}
	names, err := write(next)
	if err == nil {
		err = writeManifest(next, update, info, names)
	}
	if err != nil {
		os.RemoveAll(next)
		return err
	}
	return commitSet(dir)
}

// commitSet moves the complete set in dir's NextSetDir over the one in
// dir: every file its manifest names (one already moved by an attempt a
// kill cut short is skipped), then the manifest, then NextSetDir goes.
func commitSet(dir string) error {
	next := filepath.Join(dir, NextSetDir)
	m, err := ReadManifest(next)
	if err != nil {
		return err
	}
	for _, e := range m.Files {
		src := filepath.Join(next, e.Name)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		dst := filepath.Join(dir, e.Name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("checkpoint set: %w", err)
		}
		if err := os.Rename(src, dst); err != nil {
			return fmt.Errorf("checkpoint set: %w", err)
		}
	}
	if err := os.Rename(filepath.Join(next, ManifestFile), filepath.Join(dir, ManifestFile)); err != nil {
		return fmt.Errorf("checkpoint set: %w", err)
	}
	if d, err := os.Open(dir); err == nil { // best effort, as engine.WriteFileAtomic
		d.Sync()
		d.Close()
	}
	if err := os.RemoveAll(next); err != nil {
		return fmt.Errorf("checkpoint set: %w", err)
	}
	return nil
}

// recoverSet finishes or discards a set that a killed SaveCheckpointSet
// left in dir's NextSetDir: one whose manifest was written is moved in,
// one without a manifest is removed (the set in dir is whole).
func recoverSet(dir string) error {
	next := filepath.Join(dir, NextSetDir)
	if _, err := os.Lstat(next); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(next, ManifestFile)); err == nil {
		return commitSet(dir)
	}
	if err := os.RemoveAll(next); err != nil {
		return fmt.Errorf("checkpoint set: %w", err)
	}
	return nil
}

// writeManifest hashes the files of dir just written for update (names
// relative to dir) and writes the manifest naming them, last and
// atomically, completing the set.
func writeManifest(dir string, update int, info map[string]string, names []string) error {
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
// format, and file names that stay inside dir: a trainer's are plain
// names, a result cache's paths below files/).
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := engine.ReadFile(path, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("checkpoint set: %w", err)
	}
	var m Manifest
	if err := rl.DecodeStrict(data, &m); err != nil {
		return nil, fmt.Errorf("checkpoint set %s: %w", path, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("checkpoint set %s: format %q, want %q", path, m.Format, manifestFormat)
	}
	if m.Update < 0 {
		return nil, fmt.Errorf("checkpoint set %s: update %d < 0", path, m.Update)
	}
	for _, e := range m.Files {
		if !filepath.IsLocal(e.Name) || e.Name == ManifestFile {
			return nil, fmt.Errorf("checkpoint set %s: bad file name %q", path, e.Name)
		}
	}
	return &m, nil
}

// ReadCheckpointSet reads the manifest of dir and every file it names,
// and refuses the set, naming the first disagreement, unless each file is
// there with the manifest's size and SHA-256 and holds the manifest's
// update. It returns the manifest and the files' bytes by name. A set a
// kill left half moved in is first finished (recoverSet).
func ReadCheckpointSet(dir string) (*Manifest, map[string][]byte, error) {
	if err := recoverSet(dir); err != nil {
		return nil, nil, err
	}
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
				"(size %d, want %d, or a different SHA-256): it was changed after the manifest was written",
				dir, e.Name, m.Update, len(data), e.Bytes)
		}
		files[e.Name] = data
	}
	return m, files, nil
}

// State is what keeps its whole state in a checkpoint set: a trainer
// (rl.Trainer) after an update, a base build (rl.Base) after an epoch.
// WriteState writes its files into a folder and names them; LoadState
// puts it in the state of those files, read back for update.
type State interface {
	Updates() int
	WriteState(dir string, info map[string]string) ([]string, error)
	LoadState(dir string, update int, files map[string][]byte) error
}

// SaveState writes t's whole state into dir as one checkpoint set
// (t.WriteState, then the manifest). info (a run name, a status) goes
// into every file's metadata and the manifest. On an error the set in dir
// stands.
func SaveState(dir string, t State, info map[string]string) error {
	return SaveCheckpointSet(dir, t.Updates(), info, func(next string) ([]string, error) { return t.WriteState(next, info) })
}

// RestoreState puts t in the state of the checkpoint set in dir, which
// must agree with its manifest (ReadCheckpointSet): the next Update
// continues bitwise as the saved trainer's would have
// (rl.TestResumeIsBitwise). On an error t may be half restored: build a
// new one.
func RestoreState(dir string, t State) (*Manifest, error) {
	m, files, err := ReadCheckpointSet(dir)
	if err != nil {
		return nil, err
	}
	if err := t.LoadState(dir, m.Update, files); err != nil {
		return nil, err
	}
	return m, nil
}
