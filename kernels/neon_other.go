//go:build !arm64 || noasm

package kernels

// Where the NEON assembly is not built (other architectures, the noasm
// tag), its routines are stubs that panic: useNEON (cpu.go) is then off,
// so none is called.

const neonBuilt = false

func expNEON(dst, src *float32, n int) { panic("kernels: NEON assembly not built") }

func geluFwdNEON(x, y *float32, n int)      { panic("kernels: NEON assembly not built") }
func geluBwdNEON(x, dy, dx *float32, n int) { panic("kernels: NEON assembly not built") }

func softmaxRowNEON(x *float32, n int, scale float32, p *float32) {
	panic("kernels: NEON assembly not built")
}
