//go:build !noasm

#include "textflag.h"

// The LayerNorm forward's row loops (layernorm.go) with AVX2, doing the Go
// loops' float64 operations in the same order (no fused multiply-adds), so
// the results are bitwise the Go version's. c is a multiple of 8.

// HSUM4 sets X (the low half of Y, its low lane) to ((a0 + a1) + a2) + a3
// for the 4 doubles of Y, the order of Go's s0 + s1 + s2 + s3; T1 and T2
// are X registers it overwrites.
#define HSUM4(Y, X, T1, T2) \
	VEXTRACTF128 $1, Y, T1;  \
	VPERMILPD    $1, X, T2;  \
	VADDSD       T2, X, X;   \
	VADDSD       T1, X, X;   \
	VPERMILPD    $1, T1, T2; \
	VADDSD       T2, X, X

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
	HSUM4(Y0, X0, X1, X2)
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
	HSUM4(Y0, X0, X1, X2)
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

// func lnBackSumsAVX2(row, drow, gamma *float32, c int, mean, rstd float64) (gs, gxs float64)
// The dx row's two sums, four lanes each (j mod 4): g += d·γ and
// gx += (d·γ)·((x − mean)·rstd), then each reduced by HSUM4.
TEXT ·lnBackSumsAVX2(SB), NOSPLIT, $0-64
	MOVQ         row+0(FP), SI
	MOVQ         drow+8(FP), BX
	MOVQ         gamma+16(FP), DX
	MOVQ         c+24(FP), CX
	VBROADCASTSD mean+32(FP), Y6
	VBROADCASTSD rstd+40(FP), Y7
	SHRQ         $2, CX
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5

bsloop:
	VCVTPS2PD (BX), Y0
	VCVTPS2PD (DX), Y1
	VMULPD    Y1, Y0, Y0     // ga = d·γ
	VADDPD    Y0, Y4, Y4
	VCVTPS2PD (SI), Y1
	VSUBPD    Y6, Y1, Y1
	VMULPD    Y7, Y1, Y1     // x̂
	VMULPD    Y1, Y0, Y0     // ga·x̂
	VADDPD    Y0, Y5, Y5
	ADDQ      $16, SI
	ADDQ      $16, BX
	ADDQ      $16, DX
	DECQ      CX
	JNZ       bsloop
	HSUM4(Y4, X4, X1, X2)
	VMOVSD    X4, gs+48(FP)
	HSUM4(Y5, X5, X1, X2)
	VMOVSD    X5, gxs+56(FP)
	VZEROUPPER
	RET

// func lnBackApplyAVX2(row, drow, gamma, out *float32, c int, mean, rstd, gMean, gxMean float64)
// out = float32(rstd·((d·γ − gMean) − x̂·gxMean)), x̂ = (x − mean)·rstd.
TEXT ·lnBackApplyAVX2(SB), NOSPLIT, $0-72
	MOVQ         row+0(FP), SI
	MOVQ         drow+8(FP), BX
	MOVQ         gamma+16(FP), DX
	MOVQ         out+24(FP), DI
	MOVQ         c+32(FP), CX
	VBROADCASTSD mean+40(FP), Y6
	VBROADCASTSD rstd+48(FP), Y7
	VBROADCASTSD gMean+56(FP), Y8
	VBROADCASTSD gxMean+64(FP), Y9
	SHRQ         $2, CX

baloop:
	VCVTPS2PD  (SI), Y1
	VSUBPD     Y6, Y1, Y1
	VMULPD     Y7, Y1, Y1     // x̂
	VCVTPS2PD  (BX), Y0
	VCVTPS2PD  (DX), Y2
	VMULPD     Y2, Y0, Y0     // d·γ
	VSUBPD     Y8, Y0, Y0     // − gMean
	VMULPD     Y9, Y1, Y1     // x̂·gxMean
	VSUBPD     Y1, Y0, Y0
	VMULPD     Y0, Y7, Y0     // rstd·(…)
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)
	ADDQ       $16, SI
	ADDQ       $16, BX
	ADDQ       $16, DX
	ADDQ       $16, DI
	DECQ       CX
	JNZ        baloop
	VZEROUPPER
	RET

// func lnXhatSumsAVX2(dy, x *float32, n, c int, mean, rstd, acc *float64)
// acc[j] += d·((x − mean_i)·rstd_i) over rows i < n in order, float64,
// 8 columns at a time (two 4-double halves), c a multiple of 8.
TEXT ·lnXhatSumsAVX2(SB), NOSPLIT, $0-56
	MOVQ dy+0(FP), BX
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), DX
	MOVQ mean+32(FP), R10
	MOVQ rstd+40(FP), R11
	MOVQ acc+48(FP), R12
	SHRQ $3, DX

xrow:
	VBROADCASTSD (R10), Y6
	VBROADCASTSD (R11), Y7
	MOVQ         R12, R8
	MOVQ         DX, R9

xcol:
	VCVTPS2PD (SI), Y0
	VSUBPD    Y6, Y0, Y0
	VMULPD    Y7, Y0, Y0
	VCVTPS2PD (BX), Y1
	VMULPD    Y0, Y1, Y1     // d·x̂
	VADDPD    (R8), Y1, Y1
	VMOVUPD   Y1, (R8)
	VCVTPS2PD 16(SI), Y2
	VSUBPD    Y6, Y2, Y2
	VMULPD    Y7, Y2, Y2
	VCVTPS2PD 16(BX), Y3
	VMULPD    Y2, Y3, Y3
	VADDPD    32(R8), Y3, Y3
	VMOVUPD   Y3, 32(R8)
	ADDQ      $32, SI
	ADDQ      $32, BX
	ADDQ      $64, R8
	DECQ      R9
	JNZ       xcol
	ADDQ      $8, R10
	ADDQ      $8, R11
	DECQ      CX
	JNZ       xrow
	VZEROUPPER
	RET

// func lnSum4AVX2(row *float32, c int, sums *[4]float64)
// lnSumAVX2 on the four rows row[0:c], row[c:2c], …, at once: four
// independent accumulator chains, each row's sums exactly lnSumAVX2's.
TEXT ·lnSum4AVX2(SB), NOSPLIT, $0-24
	MOVQ   row+0(FP), SI
	MOVQ   c+8(FP), CX
	MOVQ   sums+16(FP), DI
	MOVQ   CX, R8
	SHLQ   $2, R8             // row stride in bytes
	LEAQ   (SI)(R8*1), R9
	LEAQ   (R9)(R8*1), R10
	LEAQ   (R10)(R8*1), R11
	SHRQ   $2, CX
	VXORPD Y0, Y0, Y0
	VXORPD Y4, Y4, Y4
	VXORPD Y8, Y8, Y8
	VXORPD Y12, Y12, Y12

sum4loop:
	VCVTPS2PD (SI), Y1
	VADDPD    Y1, Y0, Y0
	VCVTPS2PD (R9), Y5
	VADDPD    Y5, Y4, Y4
	VCVTPS2PD (R10), Y9
	VADDPD    Y9, Y8, Y8
	VCVTPS2PD (R11), Y13
	VADDPD    Y13, Y12, Y12
	ADDQ      $16, SI
	ADDQ      $16, R9
	ADDQ      $16, R10
	ADDQ      $16, R11
	DECQ      CX
	JNZ       sum4loop
	HSUM4(Y0, X0, X1, X2)
	HSUM4(Y4, X4, X5, X6)
	HSUM4(Y8, X8, X9, X10)
	HSUM4(Y12, X12, X13, X14)
	VMOVSD    X0, 0(DI)
	VMOVSD    X4, 8(DI)
	VMOVSD    X8, 16(DI)
	VMOVSD    X12, 24(DI)
	VZEROUPPER
	RET

// func lnSqSum4AVX2(row *float32, c int, means, sq *[4]float64)
// lnSqSumAVX2 on four rows at once, as lnSum4AVX2.
TEXT ·lnSqSum4AVX2(SB), NOSPLIT, $0-32
	MOVQ         row+0(FP), SI
	MOVQ         c+8(FP), CX
	MOVQ         means+16(FP), AX
	MOVQ         sq+24(FP), DI
	VBROADCASTSD 0(AX), Y3
	VBROADCASTSD 8(AX), Y7
	VBROADCASTSD 16(AX), Y11
	VBROADCASTSD 24(AX), Y15
	MOVQ         CX, R8
	SHLQ         $2, R8
	LEAQ         (SI)(R8*1), R9
	LEAQ         (R9)(R8*1), R10
	LEAQ         (R10)(R8*1), R11
	SHRQ         $2, CX
	VXORPD       Y0, Y0, Y0
	VXORPD       Y4, Y4, Y4
	VXORPD       Y8, Y8, Y8
	VXORPD       Y12, Y12, Y12

sq4loop:
	VCVTPS2PD (SI), Y1
	VSUBPD    Y3, Y1, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y0, Y0
	VCVTPS2PD (R9), Y5
	VSUBPD    Y7, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y4, Y4
	VCVTPS2PD (R10), Y9
	VSUBPD    Y11, Y9, Y9
	VMULPD    Y9, Y9, Y9
	VADDPD    Y9, Y8, Y8
	VCVTPS2PD (R11), Y13
	VSUBPD    Y15, Y13, Y13
	VMULPD    Y13, Y13, Y13
	VADDPD    Y13, Y12, Y12
	ADDQ      $16, SI
	ADDQ      $16, R9
	ADDQ      $16, R10
	ADDQ      $16, R11
	DECQ      CX
	JNZ       sq4loop
	HSUM4(Y0, X0, X1, X2)
	HSUM4(Y4, X4, X5, X6)
	HSUM4(Y8, X8, X9, X10)
	HSUM4(Y12, X12, X13, X14)
	VMOVSD    X0, 0(DI)
	VMOVSD    X4, 8(DI)
	VMOVSD    X8, 16(DI)
	VMOVSD    X12, 24(DI)
	VZEROUPPER
	RET

// func lnBackSums2AVX2(row, drow, gamma *float32, c int, stats, sums *[4]float64)
// lnBackSumsAVX2 on the two rows row[0:c] and row[c:2c] (drow likewise)
// at once, stats = (mean0, rstd0, mean1, rstd1), sums = (gs0, gxs0, gs1,
// gxs1): four independent chains, each row's exactly lnBackSumsAVX2's.
TEXT ·lnBackSums2AVX2(SB), NOSPLIT, $0-48
	MOVQ         row+0(FP), SI
	MOVQ         drow+8(FP), BX
	MOVQ         gamma+16(FP), DX
	MOVQ         c+24(FP), CX
	MOVQ         stats+32(FP), AX
	MOVQ         sums+40(FP), DI
	VBROADCASTSD 0(AX), Y6
	VBROADCASTSD 8(AX), Y7
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD 24(AX), Y15
	MOVQ         CX, R8
	SHLQ         $2, R8
	LEAQ         (SI)(R8*1), R9  // row 1
	LEAQ         (BX)(R8*1), R10 // drow 1
	SHRQ         $2, CX
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VXORPD       Y12, Y12, Y12
	VXORPD       Y13, Y13, Y13

bs2loop:
	VCVTPS2PD (DX), Y3       // γ
	VCVTPS2PD (BX), Y0
	VMULPD    Y3, Y0, Y0     // ga = d·γ
	VADDPD    Y0, Y4, Y4
	VCVTPS2PD (SI), Y1
	VSUBPD    Y6, Y1, Y1
	VMULPD    Y7, Y1, Y1     // x̂
	VMULPD    Y1, Y0, Y0     // ga·x̂
	VADDPD    Y0, Y5, Y5
	VCVTPS2PD (R10), Y8
	VMULPD    Y3, Y8, Y8
	VADDPD    Y8, Y12, Y12
	VCVTPS2PD (R9), Y9
	VSUBPD    Y14, Y9, Y9
	VMULPD    Y15, Y9, Y9
	VMULPD    Y9, Y8, Y8
	VADDPD    Y8, Y13, Y13
	ADDQ      $16, SI
	ADDQ      $16, BX
	ADDQ      $16, R9
	ADDQ      $16, R10
	ADDQ      $16, DX
	DECQ      CX
	JNZ       bs2loop
	HSUM4(Y4, X4, X1, X2)
	HSUM4(Y5, X5, X1, X2)
	HSUM4(Y12, X12, X1, X2)
	HSUM4(Y13, X13, X1, X2)
	VMOVSD    X4, 0(DI)
	VMOVSD    X5, 8(DI)
	VMOVSD    X12, 16(DI)
	VMOVSD    X13, 24(DI)
	VZEROUPPER
	RET
