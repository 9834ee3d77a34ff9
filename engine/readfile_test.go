//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withDeadline fails the test instead of hanging when f blocks.
func withDeadline(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("blocked for 10 s")
		return nil
	}
}

// Only regular files within the limit are read; a FIFO, a device or a
// directory is refused at once (never a hang, never an endless read), and
// so is every checkpoint load of one.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	small := filepath.Join(dir, "small.json")
	require.NoError(t, os.WriteFile(small, []byte(`{"a":1}`), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(small, link))
	fifoLink := filepath.Join(dir, "fifo-link")
	require.NoError(t, os.Symlink(fifo, fifoLink))

	for _, tc := range []struct {
		name, path, want string
		limit            int64
	}{
		{"fifo", fifo, "named pipe", 1 << 20},
		{"link to a fifo", fifoLink, "named pipe", 1 << 20},
		{"/dev/zero", "/dev/zero", "device", 1 << 20},
		{"/dev/null", "/dev/null", "device", 1 << 20},
		{"directory", dir, "directory", 1 << 20},
		{"over the limit", small, "over the 4-byte limit", 4},
		{"absent", filepath.Join(dir, "absent"), "no such file", 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := withDeadline(t, func() error { _, err := ReadFile(tc.path, tc.limit); return err })
			assert.ErrorContains(t, err, tc.want)
			err = withDeadline(t, func() error { _, _, err := LoadSafetensors(tc.path); return err })
			assert.Error(t, err)
		})
	}
	for _, p := range []string{small, link} {
		data, err := ReadFile(p, 7)
		require.NoError(t, err, p)
		assert.Equal(t, `{"a":1}`, string(data))
	}
}

func TestReadAtMostStopsAtTheLimit(t *testing.T) {
	f, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer f.Close()
	_, err = readAtMost(f, nil, 1<<16)
	assert.ErrorContains(t, err, "65536-byte limit")
}
