//go:build !noasm

#include "textflag.h"
#include "neon_arm64.h"
#include "exp_arm64.h"

// func softmaxRowNEON(x *float32, n int, scale float32, p *float32)
//
// One attention row (softmaxRow, attention.go), n ≥ 1, in three passes of
// four lanes, the last n mod 4 values each pass as the pass allows:
//
//	1. x[s] *= scale, m = max x (FMAXNM: a NaN is passed over, as the Go
//	   loop's > passes over it; the tail one value at a time)
//	2. x[s] = e^(x[s] − m) (EXP4; the tail's lanes loaded one by one into
//	   a vector of −Inf, whose lanes give e = 0), Σ e in float64 in four
//	   partial sums (two vectors of two), added as (s0 + s2) + (s1 + s3)
//	3. p[s] = x[s]·float32(1/Σ)
//
// Each value's scale, shift, exponential (exp32's bits) and product are
// the Go loop's; only Σ is added in another order, so p is within an ulp
// of the Go path's and the scratch x is bitwise it
// (TestSoftmaxRowNEONMatchesGo). A NaN makes Σ, so the whole row, NaN.
TEXT ·softmaxRowNEON(SB), NOSPLIT, $0-32
	MOVD  x+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS scale+16(FP), F7
	VDUP  V7.S[0], V7.S4
	MOVD  p+24(FP), R2
	EXPCONSTS(R3)
	MOVW  $0xff800000, R3 // −Inf
	VDUP  R3, V9.S4
	AND   $3, R1, R5      // tail length

	// Pass 1: scale, max.
	VORR V9.B16, V9.B16, V6.B16
	MOVD R0, R8
	LSR  $2, R1, R4
	CBZ  R4, scaletail

scale4:
	VLD1   (R8), [V0.S4]
	FMUL4(7, 0, 0)
	VST1.P [V0.S4], 16(R8)
	FMAXNM4(0, 6, 6)
	SUBS   $1, R4, R4
	BNE    scale4

scaletail:
	FMAXNMV4(6, 6)
	CBZ  R5, scaled
	MOVD R5, R3

scale1:
	FMOVS   (R8), F0
	FMULS   F7, F0, F0
	FMOVS.P F0, 4(R8)
	FMAXNMS F0, F6, F6
	SUBS    $1, R3, R3
	BNE     scale1

scaled:
	VDUP V6.S[0], V6.S4 // m in every lane

	// Pass 2: exponentials over x, float64 sum in V10, V11.
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	MOVD R0, R8
	LSR  $2, R1, R4
	CBZ  R4, exptail

exp4:
	VLD1   (R8), [V0.S4]
	FSUB4(6, 0, 0)
	EXP4
	VST1.P [V1.S4], 16(R8)
	FCVTL(1, 2)
	FCVTL2(1, 3)
	DADD2(2, 10, 10)
	DADD2(3, 11, 11)
	SUBS   $1, R4, R4
	BNE    exp4

exptail:
	CBZ    R5, expsum
	MOVD   R8, R9
	VORR   V9.B16, V9.B16, V0.B16
	VLD1.P 4(R9), V0.S[0]
	CMP    $2, R5
	BLT    exptailexp
	VLD1.P 4(R9), V0.S[1]
	CMP    $3, R5
	BLT    exptailexp
	VLD1.P 4(R9), V0.S[2]

exptailexp:
	FSUB4(6, 0, 0)
	EXP4
	VST1.P V1.S[0], 4(R8)
	CMP    $2, R5
	BLT    exptailsum
	VST1.P V1.S[1], 4(R8)
	CMP    $3, R5
	BLT    exptailsum
	VST1.P V1.S[2], 4(R8)

exptailsum:
	FCVTL(1, 2)
	FCVTL2(1, 3)
	DADD2(2, 10, 10)
	DADD2(3, 11, 11)

expsum:
	DADD2(11, 10, 10)
	VMOV   V10.D[1], V11.D[0]
	FADDD  F11, F10, F10 // Σ
	FMOVD  $1.0, F11
	FDIVD  F10, F11, F11 // 1/Σ
	FCVTDS F11, F12
	VDUP   V12.S[0], V12.S4

	// Pass 3: p = e·float32(1/Σ).
	MOVD R0, R8
	MOVD R2, R9
	LSR  $2, R1, R4
	CBZ  R4, normtail

norm4:
	VLD1.P 16(R8), [V0.S4]
	FMUL4(12, 0, 0)
	VST1.P [V0.S4], 16(R9)
	SUBS   $1, R4, R4
	BNE    norm4

normtail:
	CBZ R5, done

norm1:
	FMOVS.P 4(R8), F0
	FMULS   F12, F0, F0
	FMOVS.P F0, 4(R9)
	SUBS    $1, R5, R5
	BNE     norm1

done:
	RET
