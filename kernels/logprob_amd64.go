//go:build !noasm

package kernels

// lseRowsAVX2 writes m, s, t of row r of x (rows, v) into out[r],
// out[stride+r], out[2·stride+r], t only when withEnt; see logprob_amd64.s.
//
//go:noescape
func lseRowsAVX2(x *float32, v, rows int, out *float32, stride int, withEnt bool)

// dzRowsAVX2 writes (or adds) e^lp·(a + b·lp) with lp = x − L per row of x
// (rows, v) into dz, with (L, a, b) per row in par (rows, 3). mode is a sum
// of dzAccumulate, dzEntropy (without it b must be 0) and dzNonTemporal.
//
//go:noescape
func dzRowsAVX2(x *float32, v, rows int, par *float32, dz *float32, mode int)
