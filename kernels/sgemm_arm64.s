//go:build !noasm

#include "textflag.h"
#include "neon_arm64.h"

// func sgemmKernelNEON(kc int, a *float32, rs, ks int, b, c *float32, ldc int, alpha, beta float32)
//
// One full 6×16 tile of C (the contract of sgemmTileFunc, sgemm_block.go):
// the tile lives in V0–V23 (row r in V(4r)..V(4r+3), four lanes each) for
// the whole k loop. Each k step loads the sixteen B values of the packed
// sliver (V24–V27), broadcasts the six A values a[r·rs + p·ks] in turn
// (V28, V29: one load per value, LD1R) and does 24 fused multiply-adds:
// each C element is one float32 accumulator, summed in the order p = 0..kc-1.
// Then C = α·acc (β = 0: C is not read) or C = fma(α, acc, β·C), kc ≥ 1.
// R0–R5 walk the six A rows, ks·4 bytes a step.
TEXT ·sgemmKernelNEON(SB), NOSPLIT, $0-64
	MOVD kc+0(FP), R8
	MOVD a+8(FP), R0
	MOVD rs+16(FP), R9
	MOVD ks+24(FP), R10
	MOVD b+32(FP), R11
	MOVD c+40(FP), R12
	MOVD ldc+48(FP), R13
	LSL  $2, R9, R9   // bytes
	LSL  $2, R10, R10
	LSL  $2, R13, R13
	ADD  R9, R0, R1
	ADD  R9, R1, R2
	ADD  R9, R2, R3
	ADD  R9, R3, R4
	ADD  R9, R4, R5
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16

loop:
	VLD1.P 64(R11), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1R.P (R0)(R10), [V28.S4]
	VFMLA  V24.S4, V28.S4, V0.S4
	VFMLA  V25.S4, V28.S4, V1.S4
	VFMLA  V26.S4, V28.S4, V2.S4
	VFMLA  V27.S4, V28.S4, V3.S4
	VLD1R.P (R1)(R10), [V29.S4]
	VFMLA  V24.S4, V29.S4, V4.S4
	VFMLA  V25.S4, V29.S4, V5.S4
	VFMLA  V26.S4, V29.S4, V6.S4
	VFMLA  V27.S4, V29.S4, V7.S4
	VLD1R.P (R2)(R10), [V28.S4]
	VFMLA  V24.S4, V28.S4, V8.S4
	VFMLA  V25.S4, V28.S4, V9.S4
	VFMLA  V26.S4, V28.S4, V10.S4
	VFMLA  V27.S4, V28.S4, V11.S4
	VLD1R.P (R3)(R10), [V29.S4]
	VFMLA  V24.S4, V29.S4, V12.S4
	VFMLA  V25.S4, V29.S4, V13.S4
	VFMLA  V26.S4, V29.S4, V14.S4
	VFMLA  V27.S4, V29.S4, V15.S4
	VLD1R.P (R4)(R10), [V28.S4]
	VFMLA  V24.S4, V28.S4, V16.S4
	VFMLA  V25.S4, V28.S4, V17.S4
	VFMLA  V26.S4, V28.S4, V18.S4
	VFMLA  V27.S4, V28.S4, V19.S4
	VLD1R.P (R5)(R10), [V29.S4]
	VFMLA  V24.S4, V29.S4, V20.S4
	VFMLA  V25.S4, V29.S4, V21.S4
	VFMLA  V26.S4, V29.S4, V22.S4
	VFMLA  V27.S4, V29.S4, V23.S4
	SUBS   $1, R8, R8
	BNE    loop

	FMOVS alpha+56(FP), F30
	VDUP  V30.S[0], V30.S4
	FMOVS beta+60(FP), F31
	FCMPS $(0.0), F31
	BEQ   overwrite
	VDUP  V31.S[0], V31.S4
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V0.S4, V24.S4
	VFMLA  V30.S4, V1.S4, V25.S4
	VFMLA  V30.S4, V2.S4, V26.S4
	VFMLA  V30.S4, V3.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	ADD    R13, R12, R12
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V4.S4, V24.S4
	VFMLA  V30.S4, V5.S4, V25.S4
	VFMLA  V30.S4, V6.S4, V26.S4
	VFMLA  V30.S4, V7.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	ADD    R13, R12, R12
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V8.S4, V24.S4
	VFMLA  V30.S4, V9.S4, V25.S4
	VFMLA  V30.S4, V10.S4, V26.S4
	VFMLA  V30.S4, V11.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	ADD    R13, R12, R12
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V12.S4, V24.S4
	VFMLA  V30.S4, V13.S4, V25.S4
	VFMLA  V30.S4, V14.S4, V26.S4
	VFMLA  V30.S4, V15.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	ADD    R13, R12, R12
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V16.S4, V24.S4
	VFMLA  V30.S4, V17.S4, V25.S4
	VFMLA  V30.S4, V18.S4, V26.S4
	VFMLA  V30.S4, V19.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	ADD    R13, R12, R12
	VLD1   (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMUL4(31, 24, 24)                 // β·C
	FMUL4(31, 25, 25)
	FMUL4(31, 26, 26)
	FMUL4(31, 27, 27)
	VFMLA  V30.S4, V20.S4, V24.S4
	VFMLA  V30.S4, V21.S4, V25.S4
	VFMLA  V30.S4, V22.S4, V26.S4
	VFMLA  V30.S4, V23.S4, V27.S4
	VST1   [V24.S4, V25.S4, V26.S4, V27.S4], (R12)
	RET

overwrite:
	FMUL4(30, 0, 0)
	FMUL4(30, 1, 1)
	FMUL4(30, 2, 2)
	FMUL4(30, 3, 3)
	VST1   [V0.S4, V1.S4, V2.S4, V3.S4], (R12)
	ADD    R13, R12, R12
	FMUL4(30, 4, 4)
	FMUL4(30, 5, 5)
	FMUL4(30, 6, 6)
	FMUL4(30, 7, 7)
	VST1   [V4.S4, V5.S4, V6.S4, V7.S4], (R12)
	ADD    R13, R12, R12
	FMUL4(30, 8, 8)
	FMUL4(30, 9, 9)
	FMUL4(30, 10, 10)
	FMUL4(30, 11, 11)
	VST1   [V8.S4, V9.S4, V10.S4, V11.S4], (R12)
	ADD    R13, R12, R12
	FMUL4(30, 12, 12)
	FMUL4(30, 13, 13)
	FMUL4(30, 14, 14)
	FMUL4(30, 15, 15)
	VST1   [V12.S4, V13.S4, V14.S4, V15.S4], (R12)
	ADD    R13, R12, R12
	FMUL4(30, 16, 16)
	FMUL4(30, 17, 17)
	FMUL4(30, 18, 18)
	FMUL4(30, 19, 19)
	VST1   [V16.S4, V17.S4, V18.S4, V19.S4], (R12)
	ADD    R13, R12, R12
	FMUL4(30, 20, 20)
	FMUL4(30, 21, 21)
	FMUL4(30, 22, 22)
	FMUL4(30, 23, 23)
	VST1   [V20.S4, V21.S4, V22.S4, V23.S4], (R12)
	RET

// func sdotNEON(x, y *float32, n int) float32
//
// Σ x[i]·y[i], n ≥ 1: sixteen lanes of fused multiply-adds (V0–V3) over
// blocks of 16, then blocks of 4 into V0, the lanes summed as
// ((V0+V1)+(V2+V3)) lane-wise then (l0+l1)+(l2+l3), then the last n mod 4
// products added one by one (fused). The order differs from sdotGo's, so the
// two agree within float32 rounding, not bitwise.
TEXT ·sdotNEON(SB), NOSPLIT, $0-28
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	LSR  $4, R2, R3
	CBZ  R3, dot4

dot16:
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA  V4.S4, V16.S4, V0.S4
	VFMLA  V5.S4, V17.S4, V1.S4
	VFMLA  V6.S4, V18.S4, V2.S4
	VFMLA  V7.S4, V19.S4, V3.S4
	SUBS   $1, R3, R3
	BNE    dot16

dot4:
	AND $15, R2, R3
	LSR $2, R3, R3
	CBZ R3, dotsum

dot4loop:
	VLD1.P 16(R0), [V4.S4]
	VLD1.P 16(R1), [V16.S4]
	VFMLA  V4.S4, V16.S4, V0.S4
	SUBS   $1, R3, R3
	BNE    dot4loop

dotsum:
	FADD4(1, 0, 0)
	FADD4(3, 2, 2)
	FADD4(2, 0, 0)
	VMOV  V0.S[1], V1.S[0]
	VMOV  V0.S[2], V2.S[0]
	VMOV  V0.S[3], V3.S[0]
	FADDS F1, F0, F0
	FADDS F3, F2, F2
	FADDS F2, F0, F0
	AND   $3, R2, R3
	CBZ   R3, dotdone

dottail:
	FMOVS.P 4(R0), F4
	FMOVS.P 4(R1), F5
	FMADDS  F4, F0, F5, F0 // F0 += F5·F4
	SUBS    $1, R3, R3
	BNE     dottail

dotdone:
	FMOVS F0, ret+24(FP)
	RET

// func saxpyNEON(alpha float32, x, y *float32, n int)
//
// y[i] += α·x[i], n ≥ 1, one fused multiply-add per element: the same bits
// as saxpyGo compiled for arm64 (which fuses it too). Blocks of 16, of 4,
// then single values.
TEXT ·saxpyNEON(SB), NOSPLIT, $0-32
	FMOVS alpha+0(FP), F31
	VDUP  V31.S[0], V31.S4
	MOVD  x+8(FP), R0
	MOVD  y+16(FP), R1
	MOVD  n+24(FP), R2
	LSR   $4, R2, R3
	CBZ   R3, axpy4

axpy16:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1   (R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA  V31.S4, V0.S4, V4.S4
	VFMLA  V31.S4, V1.S4, V5.S4
	VFMLA  V31.S4, V2.S4, V6.S4
	VFMLA  V31.S4, V3.S4, V7.S4
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R1)
	SUBS   $1, R3, R3
	BNE    axpy16

axpy4:
	AND $15, R2, R3
	LSR $2, R3, R3
	CBZ R3, axpytail

axpy4loop:
	VLD1.P 16(R0), [V0.S4]
	VLD1   (R1), [V4.S4]
	VFMLA  V31.S4, V0.S4, V4.S4
	VST1.P [V4.S4], 16(R1)
	SUBS   $1, R3, R3
	BNE    axpy4loop

axpytail:
	AND $3, R2, R3
	CBZ R3, axpydone

axpy1:
	FMOVS.P 4(R0), F0
	FMOVS   (R1), F1
	FMADDS  F0, F1, F31, F1 // F1 += F31·F0
	FMOVS.P F1, 4(R1)
	SUBS    $1, R3, R3
	BNE     axpy1

axpydone:
	RET

// func sgemmPack16NEON(dst, src *float32, kc, ld int)
//
// Copies kc ≥ 1 runs of 16 floats, src[p·ld:] to dst[p·16:].
TEXT ·sgemmPack16NEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD kc+16(FP), R2
	MOVD ld+24(FP), R3
	LSL  $2, R3, R3

pack:
	VLD1   (R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	ADD    R3, R1, R1
	SUBS   $1, R2, R2
	BNE    pack
	RET
