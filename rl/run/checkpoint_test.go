package run

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setFiles are the files of a test set: what a trainer's state would be,
// each holding the update it was written at.
var setFiles = []string{"policy.safetensors", "critic.safetensors", "trainer.json"}

// saveSet writes the set of update into dir.
func saveSet(t *testing.T, dir string, update int) {
	require.NoError(t, SaveCheckpointSet(dir, update, map[string]string{"run": "test"}, func(next string) ([]string, error) {
		for _, name := range setFiles {
			if err := WriteFile(filepath.Join(next, name), []byte(name+" of update "+strconv.Itoa(update))); err != nil {
				return nil, err
			}
		}
		return setFiles, nil
	}))
}

// readSet reads the set in dir and checks that every file holds its
// update.
func readSet(t *testing.T, dir string) (int, error) {
	m, files, err := ReadCheckpointSet(dir)
	if err != nil {
		return 0, err
	}
	require.Len(t, files, len(setFiles))
	for name, data := range files {
		assert.Equal(t, name+" of update "+strconv.Itoa(m.Update), string(data))
	}
	return m.Update, nil
}

// A set whose files disagree with the manifest (a file rewritten after
// it, as by a kill while saving; a file missing; no manifest; a manifest
// naming a file of another update) is refused with an error saying so.
func TestReadRefusesABadSet(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		spoil      func(t *testing.T, dir string)
	}{
		{"a file rewritten after the manifest", "disagrees with its manifest", func(t *testing.T, dir string) {
			require.NoError(t, WriteFile(filepath.Join(dir, setFiles[0]), []byte("other")))
		}},
		{"a file missing", "no such file", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, setFiles[1])))
		}},
		{"no manifest", "no such file", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, ManifestFile)))
		}},
		{"a mixed manifest", "mixed", func(t *testing.T, dir string) {
			m, err := ReadManifest(dir)
			require.NoError(t, err)
			m.Files[1].Update = 7
			require.NoError(t, WriteJSON(filepath.Join(dir, ManifestFile), m))
		}},
		{"a file outside the folder", "bad file name", func(t *testing.T, dir string) {
			m, err := ReadManifest(dir)
			require.NoError(t, err)
			m.Files[0].Name = "../" + m.Files[0].Name
			require.NoError(t, WriteJSON(filepath.Join(dir, ManifestFile), m))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			saveSet(t, dir, 3)
			u, err := readSet(t, dir)
			require.NoError(t, err, "the set as saved reads")
			require.Equal(t, 3, u)
			tc.spoil(t, dir)
			_, err = readSet(t, dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A save killed at any point leaves a set to read: killed while it wrote
// the new set (NextSetDir without its manifest), the last set reads;
// killed while it moved the new set in (some files moved, the rest and
// the manifest still in NextSetDir), the new set reads.
func TestCheckpointSetSurvivesAKill(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moved int // files of the new set moved in before the kill; −1: its manifest not yet written
		want  int // the update that reads
	}{
		{"while writing the new set", -1, 1},
		{"before moving it in", 0, 2},
		{"while moving it in", 2, 2},
		{"after moving every file", len(setFiles), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, newer := t.TempDir(), t.TempDir()
			saveSet(t, dir, 1)   // the last set
			saveSet(t, newer, 2) // the set the kill cut short

			// What the killed save left: NextSetDir holding the new set,
			// tc.moved of its files already over the last set's.
			next := filepath.Join(dir, NextSetDir)
			require.NoError(t, os.Mkdir(next, 0o755))
			m, err := ReadManifest(newer)
			require.NoError(t, err)
			for i, e := range m.Files {
				to := next
				if i < tc.moved {
					to = dir
				}
				require.NoError(t, os.Rename(filepath.Join(newer, e.Name), filepath.Join(to, e.Name)))
			}
			if tc.moved >= 0 {
				require.NoError(t, os.Rename(filepath.Join(newer, ManifestFile), filepath.Join(next, ManifestFile)))
			}

			got, err := readSet(t, dir)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.NoDirExists(t, next, "the half-done save is finished or discarded")
		})
	}
}
