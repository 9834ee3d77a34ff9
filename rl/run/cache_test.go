package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cachedSweep runs a sweep of two cells into a fresh folder under cache
// (whose code version is code); cell "b"'s config holds b. It returns the
// cells that ran, what each cell gave (its file, read back by Restore on
// a hit), the sweep's folder and its console.
func cachedSweep(t *testing.T, cache *Cache, b int) (ran []string, got map[string]string, dir, console string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "s")
	got = map[string]string{}
	s := &Sweep{Kind: "test sweep", Dir: dir, Config: b, Steps: 1, Header: "== test",
		Finish: func(string, []Provenance) error { return nil }}
	for _, key := range []string{"a", "b"} {
		d := filepath.Join(dir, key)
		content := key + " seed 1"
		if key == "b" {
			content += strings.Repeat("!", b)
		}
		s.Cells = append(s.Cells, Cell{Key: key, Dir: d,
			Run: func(context.Context, *Progress, bool) error {
				ran = append(ran, key)
				require.NoError(t, os.MkdirAll(filepath.Join(d, "sub"), 0o755))
				got[key] = content
				return WriteFile(filepath.Join(d, "sub", "out.txt"), []byte(content))
			},
			Config: func() (any, error) {
				return map[string]any{"cell": key, "seed": 1, "b": map[bool]int{true: b}[key == "b"]}, nil
			},
			Restore: func() error {
				data, err := os.ReadFile(filepath.Join(d, "sub", "out.txt"))
				got[key] = string(data)
				return err
			}})
	}
	require.NoError(t, s.Open(false))
	require.NoError(t, s.Run(WithCache(context.Background(), cache)))
	data, err := os.ReadFile(filepath.Join(dir, ConsoleFile))
	require.NoError(t, err)
	return ran, got, dir, string(data)
}

// A cell run once is taken from the cache by the next sweep that has it,
// files and all, and the attempt's provenance and console say so; a cell
// of another config or under another code version runs.
func TestCacheHitsOnlyTheSameConfigAndCode(t *testing.T) {
	cache := &Cache{Dir: t.TempDir(), Code: "c1"}
	ran, first, _, console := cachedSweep(t, cache, 1)
	assert.Equal(t, []string{"a", "b"}, ran)
	assert.Equal(t, 2, strings.Count(console, "stored in the cache as "))

	ran, again, dir, console := cachedSweep(t, cache, 1)
	assert.Empty(t, ran, "both cells hit")
	assert.Equal(t, first, again, "Restore reads back what the cells gave")
	data, err := os.ReadFile(filepath.Join(dir, "b", "sub", "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "b seed 1!", string(data), "the study folder holds the cell's files")
	key, _, err := cache.Key(map[string]any{"seed": 1, "b": 0, "cell": "a"})
	require.NoError(t, err)
	assert.Contains(t, console, "a: from the cache, entry "+key)
	var attempts []Provenance
	require.NoError(t, ReadJSON(filepath.Join(dir, ProvenanceFile), MaxSummaryBytes, &attempts))
	assert.Equal(t, []CachedCell{{"a", key, cache.Dir}}, attempts[0].Cached[:1])

	ran, _, _, _ = cachedSweep(t, cache, 2)
	assert.Equal(t, []string{"b"}, ran, "b's config changed")
	ran, _, _, _ = cachedSweep(t, &Cache{Dir: cache.Dir, Code: "c2"}, 1)
	assert.Equal(t, []string{"a", "b"}, ran, "another code version")
}

// An entry that cannot be trusted is ignored, said so, and replaced by
// the cell that runs again: a changed file, a missing one, a missing or
// cut manifest, a path outside the entry.
func TestCacheIgnoresCorruptEntries(t *testing.T) {
	cache := &Cache{Dir: t.TempDir(), Code: "c1"}
	cachedSweep(t, cache, 1)
	key, _, err := cache.Key(map[string]any{"cell": "a", "seed": 1, "b": 0})
	require.NoError(t, err)
	entry := filepath.Join(cache.Dir, key)
	out := filepath.Join(entry, cacheFilesDir, "sub", "out.txt")
	manifest := filepath.Join(entry, ManifestFile)
	for name, spoil := range map[string]func(){
		"changed file": func() { require.NoError(t, os.WriteFile(out, []byte("a seed 2"), 0o644)) },
		"missing file": func() { require.NoError(t, os.Remove(out)) },
		"no entry":     func() { require.NoError(t, os.Remove(manifest)) },
		"cut entry": func() {
			data, err := os.ReadFile(manifest)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(manifest, data[:len(data)/2], 0o644))
		},
		"outside path": func() {
			data, err := os.ReadFile(manifest)
			require.NoError(t, err)
			data = []byte(strings.Replace(string(data), `"files/sub/out.txt"`, `"../out.txt"`, 1))
			require.NoError(t, os.WriteFile(manifest, data, 0o644))
		},
	} {
		spoil()
		ran, got, _, console := cachedSweep(t, cache, 1)
		assert.Equal(t, []string{"a"}, ran, name)
		assert.Equal(t, "a seed 1", got["a"], name)
		assert.Contains(t, console, "a: cache entry "+key+" ignored: ", name)
		ran, _, _, _ = cachedSweep(t, cache, 1)
		assert.Empty(t, ran, "%s: the entry was stored again", name)
	}
}
