package engine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes a file through write so that path holds either its
// old content (or nothing) or the complete new content, never a part: the
// bytes go to a temporary file in the same directory (a rename only replaces
// atomically within one file system), which is flushed, fsynced and closed,
// then renamed over path; the directory is fsynced so the rename itself
// survives a crash. On any error the temporary file is removed. A process
// killed mid-write (Ctrl-C, OOM) leaves at most a stray ".<name>.tmp-*" file
// beside path, never a half-written path. It is the project's one
// atomic writer: checkpoints and every file of a run folder go through it.
func WriteFileAtomic(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the error is the first one
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: close: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: rename: %w", path, err)
	}
	// Best effort: some file systems cannot fsync a directory; the file's own
	// content is already durable, only the rename might be lost in a crash.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
