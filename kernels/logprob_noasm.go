//go:build !amd64 || noasm

package kernels

func lseRowsAVX2(x *float32, v, rows int, out *float32, stride int, withEnt bool) {
	panic("kernels: AVX2 assembly not built")
}

func dzRowsAVX2(x *float32, v, rows int, par *float32, dz *float32, mode int) {
	panic("kernels: AVX2 assembly not built")
}
