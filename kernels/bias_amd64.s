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

// func columnSumsAVX512(grad *float32, n, ld, w int, acc *float64)
// acc[j] += Σ_i grad[i·ld+j] in float64, row after row, for j < w (a
// multiple of 8), n ≥ 1: columnSumsAVX2's sums with the accumulators in
// registers for the whole column instead of in memory, 64 columns (8
// vectors of 8 doubles) at a time, then 8 at a time.
TEXT ·columnSumsAVX512(SB), NOSPLIT, $0-40
	MOVQ grad+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ ld+16(FP), DX
	SHLQ $2, DX          // row stride in bytes
	MOVQ w+24(FP), R9
	MOVQ acc+32(FP), BX

c64:
	CMPQ    R9, $64
	JLT     c8
	VMOVUPD (BX), Z0
	VMOVUPD 64(BX), Z1
	VMOVUPD 128(BX), Z2
	VMOVUPD 192(BX), Z3
	VMOVUPD 256(BX), Z4
	VMOVUPD 320(BX), Z5
	VMOVUPD 384(BX), Z6
	VMOVUPD 448(BX), Z7
	MOVQ    SI, R8
	MOVQ    CX, R10

c64row:
	VCVTPS2PD (R8), Z8
	VADDPD    Z8, Z0, Z0
	VCVTPS2PD 32(R8), Z9
	VADDPD    Z9, Z1, Z1
	VCVTPS2PD 64(R8), Z10
	VADDPD    Z10, Z2, Z2
	VCVTPS2PD 96(R8), Z11
	VADDPD    Z11, Z3, Z3
	VCVTPS2PD 128(R8), Z12
	VADDPD    Z12, Z4, Z4
	VCVTPS2PD 160(R8), Z13
	VADDPD    Z13, Z5, Z5
	VCVTPS2PD 192(R8), Z14
	VADDPD    Z14, Z6, Z6
	VCVTPS2PD 224(R8), Z15
	VADDPD    Z15, Z7, Z7
	ADDQ      DX, R8
	DECQ      R10
	JNZ       c64row
	VMOVUPD   Z0, (BX)
	VMOVUPD   Z1, 64(BX)
	VMOVUPD   Z2, 128(BX)
	VMOVUPD   Z3, 192(BX)
	VMOVUPD   Z4, 256(BX)
	VMOVUPD   Z5, 320(BX)
	VMOVUPD   Z6, 384(BX)
	VMOVUPD   Z7, 448(BX)
	ADDQ      $256, SI
	ADDQ      $512, BX
	SUBQ      $64, R9
	JMP       c64

c8:
	CMPQ    R9, $8
	JLT     cdone
	VMOVUPD (BX), Z0
	MOVQ    SI, R8
	MOVQ    CX, R10

c8row:
	VCVTPS2PD (R8), Z8
	VADDPD    Z8, Z0, Z0
	ADDQ      DX, R8
	DECQ      R10
	JNZ       c8row
	VMOVUPD   Z0, (BX)
	ADDQ      $32, SI
	ADDQ      $64, BX
	SUBQ      $8, R9
	JMP       c8

cdone:
	VZEROUPPER
	RET
