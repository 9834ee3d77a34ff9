package kernels

// Single-precision matrix product (SGEMM), the one kernel that most of a
// transformer's time goes to.
//
// What the micro-kernel does. A product C(m,n) = A(m,k)·B(k,n) is 2mnk flops
// on only mk+kn+mn numbers, so each number can be reused many times; the
// naive triple loop reuses none of them and does two loads per multiply-add,
// so it runs at the speed of the load ports, not of the arithmetic. The
// micro-kernel (sgemm_amd64.s) instead keeps a 6×16 tile of C in twelve
// 256-bit registers for the whole k loop. Each k step loads one row of 16 B
// values (two vectors), broadcasts each of 6 A values in turn, and does 12
// fused multiply-adds: 96 multiply-adds for 8 loads. Twelve independent
// accumulators also hide the FMA latency: a core has 2 FMA units of 4-cycle
// latency, so it needs 8 FMAs in flight to issue two per cycle. At that rate
// one core does 2 units × 8 lanes × 2 flops = 32 flops per cycle.
//
// Why packing pays. The kernel wants, at each k step, the 16 B values of
// its tile side by side, whatever the caller's layout (transposed or not, any
// row stride). So each panel of B is copied into "slivers" of (k,16),
// zero-padded at the edge. The copy costs O(kn) once and is read m/6 times
// by the O(mnk) kernel; in exchange the kernel's vector loads walk forward
// through contiguous memory (the prefetcher streams it, no TLB misses, no
// cache-set conflicts from power-of-two strides). A needs less: the kernel
// broadcasts its 6 values one at a time, so it can read them where they
// are stored: from 6 row streams of a row-major A, or, for a transposed A,
// from 6 adjacent values per k step, lda apart. A is reused only n/16
// times, and for this model's n = 16..256 copying it costs 15–35% of the
// kernel time (for the attention backward's T×T by T×16 products, as much
// as the product), so A is packed into (k,6) slivers
// only for a last partial sliver.
// Edge tiles need no special kernel: the full tile is computed into a
// scratch tile and only its valid part is kept.
//
// Why blocking pays. Each level of the loop nest keeps its operand in the
// cache that can feed the next level fast enough: a B sliver (KC=256 deep,
// 16 KiB) stays in L1 while the kernel runs down every A sliver of the block;
// the A block (MC=144 rows × KC, 144 KiB) stays in L2 and is reused for every
// B sliver; the B panel (KC × NC=1024 columns) stays in L2/L3 and is reused by
// every block of rows. Without it each tile would reload its operands from
// memory and the kernel would starve. k beyond KC is done panel by panel,
// adding onto C (β = 1 after the first panel).
//
// Parallelism and determinism. Above sgemmMinWork multiply-adds per
// goroutine, the rows (then, for short matrices, the columns) of C are split
// into blocks of whole tiles run on up to GOMAXPROCS goroutines (the caller
// and the package's persistent helpers, pool.go); each reads
// (or packs) its own A rows and the shared packed B, which the same
// goroutines pack, a panel at a time, within the one hand-off of the
// product (sgemmJob's phases, sgemm_block.go). A product deeper than one
// K panel is split by columns instead: each goroutine packs its own B
// slivers and runs every K panel of its columns alone, with no phase to
// wait for (sgemm_columns.go). Every element of C is owned by one
// goroutine and summed in the same order p = 0..k-1 whatever the split,
// so results are bit-for-bit the same for any GOMAXPROCS (tested).
//
// Accuracy. As in BLAS, sums are float32 (fused on the AVX2 path): the error
// is at most about k·ε·Σ_p|a_ip·b_pj|, ε = 2⁻²⁴. SgemmRef accumulates in
// float64 and the tests hold Sgemm to that bound (sgemm_test.go).
//
// AVX-512. Where the CPU has it (cpu.go's switch), the driver hands two
// adjacent B slivers at a time to a 6×32 kernel (sgemm_avx512_amd64.s)
// that holds the 6×32 block of C in twelve 512-bit registers: twice the
// flops per k step of the AVX2 kernel on the same packed operands, and the
// same sums in the same order, so its results are bitwise those of the AVX2
// kernel (TestSgemmAVX512MatchesAVX2Bitwise). A lone last sliver and edge
// tiles take the 6×16 kernel.
//
// Matrix-vector shapes (m = 1 or n = 1) skip all this: with nothing to reuse
// they run as dot products or axpy updates in one pass (sgemm_small.go).
//
// The portable kernels (sgemm_tile_go.go, sgemm_small.go) run off amd64, on
// CPUs without AVX2/FMA, with the noasm build tag or AREW_NOASM=1 (cpu.go);
// the tests run them here too.

import "fmt"

// Sgemm computes C = α·op(A)·op(B) + β·C, row-major, as CBLAS's sgemm with
// CblasRowMajor: op(A) is (m,k), op(B) is (k,n), C is (m,n); A is stored
// (m,k) with row stride lda, or (k,m) when transA; B is stored (k,n) with row
// stride ldb, or (n,k) when transB; C has row stride ldc. Strides must be at
// least max(1, row width), and buffers long enough for their last row; bad
// arguments return an error before anything is written. β = 0 overwrites C
// without reading it (NaN there does not propagate); α = 0 or k = 0 reads
// neither A nor B. See SgemmRef for the reference loop.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	return sgemmWith(sgemmKernels(), sgemmWorkers(m, n, k), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemmWith is Sgemm with the kernels and goroutine count chosen by the
// caller: the tests use it to run the portable kernels and other splits.
func sgemmWith(kern *sgemmKernelSet, workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	if err := checkSgemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc); err != nil {
		return err
	}
	g := sgemmArgs{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc}
	switch {
	case m == 0 || n == 0:
	case alpha == 0 || k == 0:
		sgemmScaleC(&g)
	case m == 1 || n == 1:
		sgemmVector(&g, kern)
	case sgemmSwapPays(&g):
		sgemmSwapped(g, kern, workers)
	default:
		sgemmBlocked(g, kern, workers)
	}
	return nil
}

// MatMul computes c = a·b, or c += a·b when accumulate, for dense row-major
// a (m,k), b (k,n) and c (m,n); the slices must have exactly those lengths.
func MatMul(a, b, c []float32, m, k, n int, accumulate bool) error {
	if m < 0 || k < 0 || n < 0 {
		return fmt.Errorf("matmul: negative size m=%d k=%d n=%d", m, k, n)
	}
	if len(a) != m*k || len(b) != k*n || len(c) != m*n {
		return fmt.Errorf("matmul: a, b, c have %d, %d, %d elements, want (%d,%d)=%d, (%d,%d)=%d, (%d,%d)=%d",
			len(a), len(b), len(c), m, k, m*k, k, n, k*n, m, n, m*n)
	}
	var beta float32
	if accumulate {
		beta = 1
	}
	return Sgemm(false, false, m, n, k, 1, a, max(1, k), b, max(1, n), beta, c, max(1, n))
}
