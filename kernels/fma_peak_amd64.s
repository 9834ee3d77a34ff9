//go:build !noasm

#include "textflag.h"

// Register-only loops of independent fused multiply-adds: the compute
// ceiling the kernels are measured against (fma_peak.go). Twelve
// accumulators, each its own dependency chain, cover the FMA latency of
// two pipes (4 cycles × 2 = 8 in flight); nothing is loaded or stored in
// the loop. The multiplier is 1 and the addend 0, so the accumulators stay
// at their starting value (no denormals, no overflow, whatever the count).

#define FMA12(a, b, r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11) \
	VFMADD231PS a, b, r0;  \
	VFMADD231PS a, b, r1;  \
	VFMADD231PS a, b, r2;  \
	VFMADD231PS a, b, r3;  \
	VFMADD231PS a, b, r4;  \
	VFMADD231PS a, b, r5;  \
	VFMADD231PS a, b, r6;  \
	VFMADD231PS a, b, r7;  \
	VFMADD231PS a, b, r8;  \
	VFMADD231PS a, b, r9;  \
	VFMADD231PS a, b, r10; \
	VFMADD231PS a, b, r11

// func fmaLoopAVX2(iters int)
// iters × 24 FMAs of 8 lanes.
TEXT ·fmaLoopAVX2(SB), NOSPLIT, $0-8
	MOVQ   iters+0(FP), CX
	VXORPS Y12, Y12, Y12 // addend direction: a·b with a = 0
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y13, Y13, Y13
	TESTQ  CX, CX
	JZ     avx2done

avx2loop:
	FMA12(Y12, Y13, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11)
	FMA12(Y12, Y13, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11)
	DECQ CX
	JNZ  avx2loop

avx2done:
	VZEROUPPER
	RET

// func fmaLoopAVX512(iters int)
// iters × 24 FMAs of 16 lanes.
TEXT ·fmaLoopAVX512(SB), NOSPLIT, $0-8
	MOVQ   iters+0(FP), CX
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	TESTQ  CX, CX
	JZ     avx512done

avx512loop:
	FMA12(Z12, Z13, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	FMA12(Z12, Z13, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11)
	DECQ CX
	JNZ  avx512loop

avx512done:
	VZEROUPPER
	RET
