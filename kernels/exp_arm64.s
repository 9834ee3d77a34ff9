//go:build !noasm

#include "textflag.h"
#include "neon_arm64.h"
#include "exp_arm64.h"

// func expNEON(dst, src *float32, n int)
//
// dst[i] = e^src[i] for i < n, n a positive multiple of 4 (Exp, exp.go,
// does the rest in exp32): EXP4 on four lanes a step.
TEXT ·expNEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	LSR  $2, R2, R2
	EXPCONSTS(R3)

loop:
	VLD1.P 16(R1), [V0.S4]
	EXP4
	VST1.P [V1.S4], 16(R0)
	SUBS   $1, R2, R2
	BNE    loop
	RET
