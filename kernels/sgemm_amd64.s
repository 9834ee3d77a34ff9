//go:build !noasm

#include "textflag.h"

// The 6×16 AVX2/FMA micro-kernel (see the comment at the top of sgemm.go).
//
// Registers: Y4..Y15 hold the 6×16 tile of C as 6 rows × 2 vectors of 8
// floats; Y0,Y1 hold one row of the packed B sliver (16 floats); Y2,Y3 hold a
// broadcast element of A. Each k step is 2 vector loads, 6 broadcasts and
// 12 FMAs: 192 flops for 8 loads, and 12 independent accumulators, enough to
// cover the FMA latency (4 cycles × 2 units = 8 FMAs in flight).
//
// A is read through two strides: element (r,p) of the sliver is at
// a + r·rs + p·ks floats. A packed sliver has rs = 1, ks = 6; a row-major A
// read in place has rs = lda, ks = 1. SI points at rows 0..2 (via R9 = rs
// bytes, scaled ×1 and ×2), R10 at rows 3..5; both advance by R11 = ks bytes.

// KSTEP does one k step and advances A and B.
#define KSTEP \
	VMOVUPS      (DI), Y0;         \
	VMOVUPS      32(DI), Y1;       \
	VBROADCASTSS (SI), Y2;         \
	VFMADD231PS  Y0, Y2, Y4;       \
	VFMADD231PS  Y1, Y2, Y5;       \
	VBROADCASTSS (SI)(R9*1), Y3;   \
	VFMADD231PS  Y0, Y3, Y6;       \
	VFMADD231PS  Y1, Y3, Y7;       \
	VBROADCASTSS (SI)(R9*2), Y2;   \
	VFMADD231PS  Y0, Y2, Y8;       \
	VFMADD231PS  Y1, Y2, Y9;       \
	VBROADCASTSS (R10), Y3;        \
	VFMADD231PS  Y0, Y3, Y10;      \
	VFMADD231PS  Y1, Y3, Y11;      \
	VBROADCASTSS (R10)(R9*1), Y2;  \
	VFMADD231PS  Y0, Y2, Y12;      \
	VFMADD231PS  Y1, Y2, Y13;      \
	VBROADCASTSS (R10)(R9*2), Y3;  \
	VFMADD231PS  Y0, Y3, Y14;      \
	VFMADD231PS  Y1, Y3, Y15;      \
	ADDQ         R11, SI;          \
	ADDQ         R11, R10;         \
	ADDQ         $64, DI

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

// func sgemmKernelAVX2(kc int, a *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)
//
// a is the A sliver with strides rs, ks (floats), b the packed B sliver
// (kc×16), c the top-left element of a full 6×16 tile of C with row stride
// ldc (floats). kc ≥ 1.
TEXT ·sgemmKernelAVX2(SB), NOSPLIT, $0-64
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rs+16(FP), R9
	MOVQ ks+24(FP), R11
	MOVQ b+32(FP), DI
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R8
	SHLQ $2, R9
	SHLQ $2, R11
	SHLQ $2, R8
	LEAQ (SI)(R9*2), R10
	ADDQ R9, R10         // R10 = row 3

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
	KSTEP
	KSTEP
	KSTEP
	KSTEP
	DECQ BX
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	KSTEP
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+56(FP), Y0
	VBROADCASTSS beta+60(FP), Y1
	MOVL         beta+60(FP), AX
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

// func sdotAVX2(x, y *float32, n int) float32
//
// Σ x[i]·y[i]: four 8-wide accumulators over blocks of 32, one over blocks
// of 8, a fixed reduction tree, then the last n mod 8 terms one by one.
TEXT ·sdotAVX2(SB), NOSPLIT, $0-28
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   CX, BX
	SHRQ   $5, BX
	JZ     dot8

dot32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         dot32

dot8:
	MOVQ CX, BX
	ANDQ $31, BX
	SHRQ $3, BX
	JZ   reduce

loop8:
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         loop8

reduce:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0
	ANDQ         $7, CX
	JZ           dotdone

dot1:
	VMOVSS      (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         dot1

dotdone:
	VMOVSS     X0, ret+24(FP)
	VZEROUPPER
	RET

// func saxpyAVX2(alpha float32, x, y *float32, n int)
//
// y[i] += alpha·x[i], 32 at a time, then 8, then one by one.
TEXT ·saxpyAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Y0
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	MOVQ         CX, BX
	SHRQ         $5, BX
	JZ           axpy8

axpy32:
	VMOVUPS     (DI), Y1
	VMOVUPS     32(DI), Y2
	VMOVUPS     64(DI), Y3
	VMOVUPS     96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	VMOVUPS     Y3, 64(DI)
	VMOVUPS     Y4, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         axpy32

axpy8:
	MOVQ CX, BX
	ANDQ $31, BX
	SHRQ $3, BX
	JZ   axpytail

axpyloop8:
	VMOVUPS     (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         axpyloop8

axpytail:
	ANDQ $7, CX
	JZ   axpydone

axpy1:
	VMOVSS      (DI), X1
	VFMADD231SS (SI), X0, X1
	VMOVSS      X1, (DI)
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         axpy1

axpydone:
	VZEROUPPER
	RET

// func sgemmPack16AVX2(dst, src *float32, kc, ld int)
//
// dst[p·16 + c] = src[p·ld + c] for p < kc, c < 16: two 32-byte moves per
// k step (packing a row-major B sliver). kc ≥ 1.
TEXT ·sgemmPack16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ kc+16(FP), CX
	MOVQ ld+24(FP), R8
	SHLQ $2, R8

pack16:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     pack16
	VZEROUPPER
	RET
