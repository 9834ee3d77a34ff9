//go:build !amd64

package kernels

// useAVX2 is false off amd64: the portable Go products run.
var useAVX2 = false

// haveAVX2FMA says whether this CPU can run the assembly at all.
var haveAVX2FMA = false

func gemvTAVX2(x, at []float32, ld, n int, y []float32) { panic("unreachable") }
func gemvNAVX2(p, a []float32, n int, y []float32)      { panic("unreachable") }
func expShiftAVX2(x []float32, shift float32)           { panic("unreachable") }
