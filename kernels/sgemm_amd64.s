//go:build amd64 && !purego

#include "textflag.h"

// The 6×16 AVX2/FMA micro-kernel (see the comment at the top of sgemm.go).
//
// Registers: Y4..Y15 hold the 6×16 tile of C as 6 rows × 2 vectors of 8
// floats; Y0,Y1 hold one row of the packed B sliver (16 floats); Y2,Y3 hold a
// broadcast element of the packed A sliver. Each k step is 2 vector loads,
// 6 broadcasts and 12 FMAs: 192 flops for 8 loads, and 12 independent
// accumulators, enough to cover the FMA latency (4 cycles × 2 units = 8
// FMAs in flight).

// KSTEP does one k step: a at aoff(SI) (6 floats), b at boff(DI) (16 floats).
#define KSTEP(aoff, boff) \
	VMOVUPS      boff(DI), Y0;    \
	VMOVUPS      boff+32(DI), Y1; \
	VBROADCASTSS aoff(SI), Y2;    \
	VFMADD231PS  Y0, Y2, Y4;      \
	VFMADD231PS  Y1, Y2, Y5;      \
	VBROADCASTSS aoff+4(SI), Y3;  \
	VFMADD231PS  Y0, Y3, Y6;      \
	VFMADD231PS  Y1, Y3, Y7;      \
	VBROADCASTSS aoff+8(SI), Y2;  \
	VFMADD231PS  Y0, Y2, Y8;      \
	VFMADD231PS  Y1, Y2, Y9;      \
	VBROADCASTSS aoff+12(SI), Y3; \
	VFMADD231PS  Y0, Y3, Y10;     \
	VFMADD231PS  Y1, Y3, Y11;     \
	VBROADCASTSS aoff+16(SI), Y2; \
	VFMADD231PS  Y0, Y2, Y12;     \
	VFMADD231PS  Y1, Y2, Y13;     \
	VBROADCASTSS aoff+20(SI), Y3; \
	VFMADD231PS  Y0, Y3, Y14;     \
	VFMADD231PS  Y1, Y3, Y15

// STOREROW0 writes one row of α·AB (beta = 0: C is not read).
#define STOREROW0(lo, hi) \
	VMULPS  Y0, lo, lo;  \
	VMULPS  Y0, hi, hi;  \
	VMOVUPS lo, (DX);    \
	VMOVUPS hi, 32(DX);  \
	ADDQ    R8, DX

// STOREROW writes one row of α·AB + β·C.
#define STOREROW(lo, hi) \
	VMULPS      Y0, lo, lo;       \
	VMULPS      Y0, hi, hi;       \
	VFMADD231PS (DX), Y1, lo;     \
	VFMADD231PS 32(DX), Y1, hi;   \
	VMOVUPS     lo, (DX);         \
	VMOVUPS     hi, 32(DX);       \
	ADDQ        R8, DX

// func sgemmKernelAVX2(kc int, a, b, c *float32, ldc int, alpha, beta float32)
//
// a is the packed A sliver (kc×6), b the packed B sliver (kc×16), c the
// top-left element of a full 6×16 tile of C with row stride ldc (floats).
// kc ≥ 1.
TEXT ·sgemmKernelAVX2(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8

	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

	// Four k steps per iteration, then the remainder one at a time.
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail

loop4:
	KSTEP(0, 0)
	KSTEP(24, 64)
	KSTEP(48, 128)
	KSTEP(72, 192)
	ADDQ $96, SI
	ADDQ $256, DI
	DECQ BX
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	KSTEP(0, 0)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+40(FP), Y0
	VBROADCASTSS beta+44(FP), Y1
	MOVL         beta+44(FP), AX
	ANDL         $0x7fffffff, AX // β = ±0: write without reading C
	JNZ          storebeta

	STOREROW0(Y4, Y5)
	STOREROW0(Y6, Y7)
	STOREROW0(Y8, Y9)
	STOREROW0(Y10, Y11)
	STOREROW0(Y12, Y13)
	STOREROW0(Y14, Y15)
	VZEROUPPER
	RET

storebeta:
	STOREROW(Y4, Y5)
	STOREROW(Y6, Y7)
	STOREROW(Y8, Y9)
	STOREROW(Y10, Y11)
	STOREROW(Y12, Y13)
	STOREROW(Y14, Y15)
	VZEROUPPER
	RET
