//go:build !noasm

#include "textflag.h"

// The 6×32 AVX-512 micro-kernel: two adjacent packed B slivers (each kc×16,
// the AVX2 kernel's format) against one A sliver, so that packing and the
// driver's blocking stay those of the 6×16 kernel.
//
// Registers: Z4..Z15 hold the 6×32 tile of C as 6 rows × 2 vectors of 16
// floats (Z4+2r from the first sliver, Z5+2r from the second); Z0, Z1 hold
// one k step of the two slivers; Z2, Z3 a broadcast element of A. Each k
// step is 2 vector loads, 6 broadcasts and 12 FMAs of 16 lanes: twice the
// AVX2 kernel's work per step, and 12 independent accumulators cover the
// FMA latency (4 cycles × 2 pipes = 8 in flight). Every C element is the
// same fused chain over p = 0..kc-1 as in the AVX2 kernel, then α·acc and
// + β·C fused, so the two kernels give bitwise-equal results.
//
// A is read as in sgemmKernelAVX2: element (r,p) at a + r·rs + p·ks floats;
// SI points at rows 0..2 (R9 = rs bytes, scaled ×1, ×2), R10 at rows 3..5,
// both advance by R11 = ks bytes. DI and R12 walk the two B slivers.

#define KSTEP512 \
	VMOVUPS      (DI), Z0;         \
	VMOVUPS      (R12), Z1;        \
	VBROADCASTSS (SI), Z2;         \
	VFMADD231PS  Z0, Z2, Z4;       \
	VFMADD231PS  Z1, Z2, Z5;       \
	VBROADCASTSS (SI)(R9*1), Z3;   \
	VFMADD231PS  Z0, Z3, Z6;       \
	VFMADD231PS  Z1, Z3, Z7;       \
	VBROADCASTSS (SI)(R9*2), Z2;   \
	VFMADD231PS  Z0, Z2, Z8;       \
	VFMADD231PS  Z1, Z2, Z9;       \
	VBROADCASTSS (R10), Z3;        \
	VFMADD231PS  Z0, Z3, Z10;      \
	VFMADD231PS  Z1, Z3, Z11;      \
	VBROADCASTSS (R10)(R9*1), Z2;  \
	VFMADD231PS  Z0, Z2, Z12;      \
	VFMADD231PS  Z1, Z2, Z13;      \
	VBROADCASTSS (R10)(R9*2), Z3;  \
	VFMADD231PS  Z0, Z3, Z14;      \
	VFMADD231PS  Z1, Z3, Z15;      \
	ADDQ         R11, SI;          \
	ADDQ         R11, R10;         \
	ADDQ         $64, DI;          \
	ADDQ         $64, R12

// STOREROW512Z writes one row of α·AB (beta = 0: C is not read).
#define STOREROW512Z(lo, hi) \
	VMULPS  Z0, lo, lo;  \
	VMULPS  Z0, hi, hi;  \
	VMOVUPS lo, (DX);    \
	VMOVUPS hi, 64(DX);  \
	ADDQ    R8, DX

// STOREROW512 writes one row of α·AB + β·C.
#define STOREROW512(lo, hi) \
	VMULPS      Z0, lo, lo;       \
	VMULPS      Z0, hi, hi;       \
	VFMADD231PS (DX), Z1, lo;     \
	VFMADD231PS 64(DX), Z1, hi;   \
	VMOVUPS     lo, (DX);         \
	VMOVUPS     hi, 64(DX);       \
	ADDQ        R8, DX

// func sgemmKernel2AVX512(kc int, a *float32, rs, ks int, b0, b1, c *float32, ldc int, alpha, beta float32)
//
// b0, b1 are two packed B slivers (kc×16 each), c the top-left element of a
// full 6×32 block of C with row stride ldc (floats): columns 0..15 from b0,
// 16..31 from b1. kc ≥ 1.
TEXT ·sgemmKernel2AVX512(SB), NOSPLIT, $0-72
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rs+16(FP), R9
	MOVQ ks+24(FP), R11
	MOVQ b0+32(FP), DI
	MOVQ b1+40(FP), R12
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R8
	SHLQ $2, R9
	SHLQ $2, R11
	SHLQ $2, R8
	LEAQ (SI)(R9*2), R10
	ADDQ R9, R10         // R10 = row 3

	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

	// Four k steps per iteration, then the remainder one at a time.
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail

loop4:
	KSTEP512
	KSTEP512
	KSTEP512
	KSTEP512
	DECQ BX
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	KSTEP512
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+64(FP), Z0
	VBROADCASTSS beta+68(FP), Z1
	MOVL         beta+68(FP), AX
	ANDL         $0x7fffffff, AX // β = ±0: write without reading C
	JNZ          storebeta

	STOREROW512Z(Z4, Z5)
	STOREROW512Z(Z6, Z7)
	STOREROW512Z(Z8, Z9)
	STOREROW512Z(Z10, Z11)
	STOREROW512Z(Z12, Z13)
	STOREROW512Z(Z14, Z15)
	VZEROUPPER
	RET

storebeta:
	STOREROW512(Z4, Z5)
	STOREROW512(Z6, Z7)
	STOREROW512(Z8, Z9)
	STOREROW512(Z10, Z11)
	STOREROW512(Z12, Z13)
	STOREROW512(Z14, Z15)
	VZEROUPPER
	RET

// The 12×16 AVX-512 micro-kernel: one packed B sliver against two A
// slivers of 6 rows (a0 for rows 0..5, a1 for rows 6..11, the same
// strides), for products whose n leaves a lone sliver (n = 16 in the
// attention backward's T×T by T×16 products). Z4..Z15 hold the 12 rows
// of C, one 16-float vector each; Z0 one k step of B; Z2, Z3 broadcasts.
// Each k step: 1 vector load, 12 broadcasts, 12 FMAs; the same sums as the
// 6×16 kernel, so bitwise its results.

#define KSTEP12 \
	VMOVUPS      (DI), Z0;          \
	VBROADCASTSS (SI), Z2;          \
	VFMADD231PS  Z0, Z2, Z4;        \
	VBROADCASTSS (SI)(R9*1), Z3;    \
	VFMADD231PS  Z0, Z3, Z5;        \
	VBROADCASTSS (SI)(R9*2), Z2;    \
	VFMADD231PS  Z0, Z2, Z6;        \
	VBROADCASTSS (R10), Z3;         \
	VFMADD231PS  Z0, Z3, Z7;        \
	VBROADCASTSS (R10)(R9*1), Z2;   \
	VFMADD231PS  Z0, Z2, Z8;        \
	VBROADCASTSS (R10)(R9*2), Z3;   \
	VFMADD231PS  Z0, Z3, Z9;        \
	VBROADCASTSS (R13), Z2;         \
	VFMADD231PS  Z0, Z2, Z10;       \
	VBROADCASTSS (R13)(R9*1), Z3;   \
	VFMADD231PS  Z0, Z3, Z11;       \
	VBROADCASTSS (R13)(R9*2), Z2;   \
	VFMADD231PS  Z0, Z2, Z12;       \
	VBROADCASTSS (R14), Z3;         \
	VFMADD231PS  Z0, Z3, Z13;       \
	VBROADCASTSS (R14)(R9*1), Z2;   \
	VFMADD231PS  Z0, Z2, Z14;       \
	VBROADCASTSS (R14)(R9*2), Z3;   \
	VFMADD231PS  Z0, Z3, Z15;       \
	ADDQ         R11, SI;           \
	ADDQ         R11, R10;          \
	ADDQ         R11, R13;          \
	ADDQ         R11, R14;          \
	ADDQ         $64, DI

#define STORE12Z(r) \
	VMULPS  Z0, r, r;  \
	VMOVUPS r, (DX);   \
	ADDQ    R8, DX

#define STORE12(r) \
	VMULPS      Z0, r, r;     \
	VFMADD231PS (DX), Z1, r;  \
	VMOVUPS     r, (DX);      \
	ADDQ        R8, DX

// func sgemmKernel12AVX512(kc int, a0, a1 *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)
TEXT ·sgemmKernel12AVX512(SB), NOSPLIT, $0-72
	MOVQ kc+0(FP), CX
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), R13
	MOVQ rs+24(FP), R9
	MOVQ ks+32(FP), R11
	MOVQ b+40(FP), DI
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R8
	SHLQ $2, R9
	SHLQ $2, R11
	SHLQ $2, R8
	LEAQ (SI)(R9*2), R10
	ADDQ R9, R10         // R10 = a0 row 3
	LEAQ (R13)(R9*2), R14
	ADDQ R9, R14         // R14 = a1 row 3

	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail12

loop12x4:
	KSTEP12
	KSTEP12
	KSTEP12
	KSTEP12
	DECQ BX
	JNZ  loop12x4

tail12:
	ANDQ $3, CX
	JZ   store12

loop12x1:
	KSTEP12
	DECQ CX
	JNZ  loop12x1

store12:
	VBROADCASTSS alpha+64(FP), Z0
	VBROADCASTSS beta+68(FP), Z1
	MOVL         beta+68(FP), AX
	ANDL         $0x7fffffff, AX
	JNZ          store12beta

	STORE12Z(Z4)
	STORE12Z(Z5)
	STORE12Z(Z6)
	STORE12Z(Z7)
	STORE12Z(Z8)
	STORE12Z(Z9)
	STORE12Z(Z10)
	STORE12Z(Z11)
	STORE12Z(Z12)
	STORE12Z(Z13)
	STORE12Z(Z14)
	STORE12Z(Z15)
	VZEROUPPER
	RET

store12beta:
	STORE12(Z4)
	STORE12(Z5)
	STORE12(Z6)
	STORE12(Z7)
	STORE12(Z8)
	STORE12(Z9)
	STORE12(Z10)
	STORE12(Z11)
	STORE12(Z12)
	STORE12(Z13)
	STORE12(Z14)
	STORE12(Z15)
	VZEROUPPER
	RET
