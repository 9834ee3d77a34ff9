//go:build !unix

package engine

import "os"

// openReadFlags: without O_NONBLOCK, OpenRegular's check before the open
// is what keeps a FIFO from blocking it.
const openReadFlags = os.O_RDONLY
