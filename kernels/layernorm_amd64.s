//go:build !noasm

#include "textflag.h"

// The LayerNorm forward's row loops (layernorm.go) with AVX2, doing the Go
// loops' float64 operations in the same order (no fused multiply-adds), so
// the results are bitwise the Go version's. c is a multiple of 8.

// HSUM4 sets X0 (low lane) to ((a0 + a1) + a2) + a3 for the 4 doubles of
// Y0, the order of Go's s0 + s1 + s2 + s3.
#define HSUM4 \
	VEXTRACTF128 $1, Y0, X1;   \
	VPERMILPD    $1, X0, X2;   \
	VADDSD       X2, X0, X0;   \
	VADDSD       X1, X0, X0;   \
	VPERMILPD    $1, X1, X2;   \
	VADDSD       X2, X0, X0

// func lnSumAVX2(row *float32, c int) float64
// Σ row as rowMeanRstd's four accumulators (lane j mod 4) do it.
TEXT ·lnSumAVX2(SB), NOSPLIT, $0-24
	MOVQ   row+0(FP), SI
	MOVQ   c+8(FP), CX
	SHRQ   $2, CX
	VXORPD Y0, Y0, Y0

sumloop:
	VCVTPS2PD (SI), Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $16, SI
	DECQ      CX
	JNZ       sumloop
	HSUM4
	VMOVSD    X0, ret+16(FP)
	VZEROUPPER
	RET

// func lnSqSumAVX2(row *float32, c int, mean float64) float64
// Σ (row − mean)², four accumulators as above, each d·d then added.
TEXT ·lnSqSumAVX2(SB), NOSPLIT, $0-32
	MOVQ         row+0(FP), SI
	MOVQ         c+8(FP), CX
	VBROADCASTSD mean+16(FP), Y3
	SHRQ         $2, CX
	VXORPD       Y0, Y0, Y0

sqloop:
	VCVTPS2PD (SI), Y1
	VSUBPD    Y3, Y1, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $16, SI
	DECQ      CX
	JNZ       sqloop
	HSUM4
	VMOVSD    X0, ret+24(FP)
	VZEROUPPER
	RET

// func lnApplyAVX2(row, gamma, beta, out *float32, c int, mean, rstd float64)
// out[j] = float32(((row[j] − mean)·rstd)·gamma[j] + beta[j]) in float64.
TEXT ·lnApplyAVX2(SB), NOSPLIT, $0-56
	MOVQ         row+0(FP), SI
	MOVQ         gamma+8(FP), BX
	MOVQ         beta+16(FP), DX
	MOVQ         out+24(FP), DI
	MOVQ         c+32(FP), CX
	VBROADCASTSD mean+40(FP), Y6
	VBROADCASTSD rstd+48(FP), Y7
	SHRQ         $2, CX

applyloop:
	VCVTPS2PD  (SI), Y0
	VSUBPD     Y6, Y0, Y0
	VMULPD     Y7, Y0, Y0
	VCVTPS2PD  (BX), Y1
	VMULPD     Y1, Y0, Y0
	VCVTPS2PD  (DX), Y2
	VADDPD     Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)
	ADDQ       $16, SI
	ADDQ       $16, BX
	ADDQ       $16, DX
	ADDQ       $16, DI
	DECQ       CX
	JNZ        applyloop
	VZEROUPPER
	RET
