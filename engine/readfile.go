package engine

import (
	"fmt"
	"io"
	"os"
)

// MaxCheckpointBytes caps a checkpoint file LoadSafetensors accepts: 4 GiB,
// two orders of magnitude above the largest preset with its optimiser
// state, far below what a hostile size could make a reader allocate.
const MaxCheckpointBytes = 4 << 30

// OpenRegular opens path for reading if it is a regular file of at most
// limit bytes (symbolic links are followed) and returns it with its size.
// Anything else — a directory, a FIFO, a device such as /dev/zero, a socket,
// a file over the limit — is refused with an error naming what it is, and
// never blocks: the file is opened without waiting for a writer (a FIFO
// would otherwise hang the open) and checked again once open, so a path
// swapped between the two checks is caught too.
func OpenRegular(path string, limit int64) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if err := checkRegular(path, st, limit); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, openReadFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	st2, err := f.Stat()
	if err == nil {
		err = checkRegular(path, st2, limit)
	}
	if err == nil && !os.SameFile(st, st2) {
		err = fmt.Errorf("%s changed while it was being opened", path)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st2.Size(), nil
}

func checkRegular(path string, st os.FileInfo, limit int64) error {
	mode := st.Mode()
	switch {
	case mode.IsDir():
		return fmt.Errorf("%s is a directory, not a file", path)
	case mode&os.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe (FIFO), not a regular file", path)
	case mode&(os.ModeDevice|os.ModeCharDevice) != 0:
		return fmt.Errorf("%s is a device, not a regular file", path)
	case !mode.IsRegular():
		return fmt.Errorf("%s is not a regular file (mode %v)", path, mode)
	case st.Size() > limit:
		return fmt.Errorf("%s is %d bytes, over the %d-byte limit for this kind of file", path, st.Size(), limit)
	}
	return nil
}

// ReadFile reads the whole of path, a regular file of at most limit bytes
// (see OpenRegular). A file that grows past limit while it is read is
// refused too, after at most limit+1 bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := OpenRegular(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, 0, size)
	data, err = readAtMost(f, data, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// readAtMost appends r's bytes to buf, failing once more than limit came.
func readAtMost(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("more than the %d-byte limit", limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
