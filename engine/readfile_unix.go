//go:build unix

package engine

import (
	"os"
	"syscall"
)

// openReadFlags opens without blocking: opening a FIFO for reading would
// otherwise wait for a writer (OpenRegular refuses it once open).
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK
