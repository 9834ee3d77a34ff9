//go:build !noasm

#include "exp_amd64.h"

// func softmaxGradRowAVX512(p, dp *float32, n int, scale float64, da *float32)
//
// softmaxGradRowAVX2 (softmax_amd64.s) with its float64 work on 8 lanes in
// one 512-bit register: the dot's two 4-lane partial sums are the two
// halves of Z14, reduced in the same order, and every element's arithmetic
// is the same, so the results are bitwise equal.
TEXT ·softmaxGradRowAVX512(SB), NOSPLIT, $0-40
	MOVQ         p+0(FP), SI
	MOVQ         dp+8(FP), BX
	MOVQ         n+16(FP), CX
	VBROADCASTSD scale+24(FP), Z12
	MOVQ         da+32(FP), DI
	MOVQ         CX, AX
	ANDQ         $7, AX
	NEGQ         AX
	LEAQ         tailMask<>(SB), DX
	VMOVUPS      32(DX)(AX*4), Y10
	MOVQ         CX, DX
	SHRQ         $3, DX

	VPXORQ Z14, Z14, Z14
	MOVQ   SI, R8
	MOVQ   BX, R10
	MOVQ   DX, R9

d5loop:
	TESTQ       R9, R9
	JZ          d5tail
	VCVTPS2PD   (R8), Z0
	VCVTPS2PD   (R10), Z1
	VFMADD231PD Z1, Z0, Z14
	ADDQ        $32, R8
	ADDQ        $32, R10
	DECQ        R9
	JMP         d5loop

d5tail:
	VMASKMOVPS    (R8), Y10, Y4
	VMASKMOVPS    (R10), Y10, Y5
	VCVTPS2PD     Y4, Z0
	VCVTPS2PD     Y5, Z1
	VFMADD231PD   Z1, Z0, Z14
	VEXTRACTF64X4 $1, Z14, Y15
	VADDPD        Y15, Y14, Y14
	VEXTRACTF128  $1, Y14, X1
	VADDPD        X1, X14, X14
	VPERMILPD     $1, X14, X1
	VADDSD        X1, X14, X14
	VBROADCASTSD  X14, Z13

	MOVQ SI, R8
	MOVQ BX, R10
	MOVQ DX, R9

g5loop:
	TESTQ     R9, R9
	JZ        g5tail
	VCVTPS2PD (R8), Z0
	VCVTPS2PD (R10), Z1
	VSUBPD    Z13, Z1, Z1
	VMULPD    Z1, Z0, Z0
	VMULPD    Z12, Z0, Z0
	VCVTPD2PS Z0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, R8
	ADDQ      $32, R10
	ADDQ      $32, DI
	DECQ      R9
	JMP       g5loop

g5tail:
	VMASKMOVPS (R8), Y10, Y4
	VMASKMOVPS (R10), Y10, Y5
	VCVTPS2PD  Y4, Z0
	VCVTPS2PD  Y5, Z1
	VSUBPD     Z13, Z1, Z1
	VMULPD     Z1, Z0, Z0
	VMULPD     Z12, Z0, Z0
	VCVTPD2PS  Z0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VZEROUPPER
	RET
