//go:build !noasm

#include "textflag.h"

// func addRowBiasAVX2(x, b, y *float32, n, d int)
// y[i·d+j] = x[i·d+j] + b[j], d a multiple of 8, n ≥ 1 rows.
TEXT ·addRowBiasAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ b+8(FP), BX
	MOVQ y+16(FP), DI
	MOVQ n+24(FP), CX
	MOVQ d+32(FP), DX
	SHRQ $3, DX          // vectors per row

brow:
	MOVQ BX, R8
	MOVQ DX, R9

bcol:
	VMOVUPS (SI), Y0
	VADDPS  (R8), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    R9
	JNZ     bcol
	DECQ    CX
	JNZ     brow
	VZEROUPPER
	RET

// func columnSumsAVX2(grad *float32, n, d int, acc *float64)
// acc[j] += Σ_i grad[i·d+j] in float64, row after row; d a multiple of 8,
// n ≥ 1. Each 8 columns are widened to two 4-double vectors and added to
// acc in memory (acc stays in L1: d ≤ a few thousand).
TEXT ·columnSumsAVX2(SB), NOSPLIT, $0-32
	MOVQ grad+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ d+16(FP), DX
	MOVQ acc+24(FP), BX
	SHRQ $3, DX

srow:
	MOVQ BX, R8
	MOVQ DX, R9

scol:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD    (R8), Y0, Y0
	VADDPD    32(R8), Y1, Y1
	VMOVUPD   Y0, (R8)
	VMOVUPD   Y1, 32(R8)
	ADDQ      $32, SI
	ADDQ      $64, R8
	DECQ      R9
	JNZ       scol
	DECQ      CX
	JNZ       srow
	VZEROUPPER
	RET
