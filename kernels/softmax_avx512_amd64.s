//go:build !noasm

#include "exp_amd64.h"

// AVX-512 versions of softmax_amd64.s's two attention rows, 16 floats at a
// time, the last n mod 16 through a k-mask (AVX-512's masked loads and
// stores instead of AVX2's VMASKMOVPS). Every element's arithmetic is the AVX2
// version's, and the float64 sums keep its lanes: element s is added to
// lane s mod 8 of one 8-lane accumulator, in order of s (the AVX2 code's
// two 4-lane halves), so the results are bitwise equal. The masked lanes
// add +0 to sums that cannot be −0, which changes nothing.

// TAILMASK sets K1 to the first n mod 16 lanes (n in CX) and DX to the
// number of whole 16-lane blocks; clobbers AX, CX.
#define TAILMASK \
	MOVQ  CX, DX;     \
	SHRQ  $4, DX;     \
	ANDQ  $15, CX;    \
	MOVL  $1, AX;     \
	SHLL  CX, AX;     \
	DECL  AX;         \
	KMOVW AX, K1

// ADDPD16(F, ACC, T) adds the 16 floats of F, as doubles, to the 8-lane
// ACC: the first 8, then the last 8 (T clobbered).
#define ADDPD16(F, FY, ACC, T, TY) \
	VCVTPS2PD     FY, T;        \
	VADDPD        T, ACC, ACC;  \
	VEXTRACTF64X4 $1, F, TY;    \
	VCVTPS2PD     TY, T;        \
	VADDPD        T, ACC, ACC

// func softmaxRowAVX512(x *float32, n int, scale float32, p *float32)
//
// softmaxRowAVX2 on 16 lanes: x[s] *= scale, m = max x, x[s] = e^(x[s] − m)
// (clamped at −88), Σ in float64, p[s] = x[s]·float32(1/Σ), for s < n ≥ 1.
TEXT ·softmaxRowAVX512(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS scale+16(FP), Z12
	MOVQ         p+24(FP), DI
	TAILMASK
	VBROADCASTSS negInf<>(SB), Z13
	VMOVAPS      Z13, Z11          // running max
	VBROADCASTSS expLo<>(SB), Z8

	// Pass 1: scale, max.
	MOVQ SI, R8
	MOVQ DX, R9

s16:
	TESTQ   R9, R9
	JZ      s16tail
	VMULPS  (R8), Z12, Z0
	VMOVUPS Z0, (R8)
	VMAXPS  Z0, Z11, Z11
	ADDQ    $64, R8
	DECQ    R9
	JMP     s16

s16tail:
	VMOVUPS.Z (R8), K1, Z0
	VMULPS    Z12, Z0, Z0
	VMOVUPS   Z0, K1, (R8)
	VMOVAPS   Z13, Z1
	VMOVAPS   Z0, K1, Z1       // lanes past n: −Inf
	VMAXPS    Z1, Z11, Z11

	VEXTRACTF64X4 $1, Z11, Y1
	VMAXPS        Y1, Y11, Y11
	VEXTRACTF128  $1, Y11, X1
	VMAXPS        X1, X11, X11
	VPERMILPS     $0x4e, X11, X1
	VMAXPS        X1, X11, X11
	VPERMILPS     $0xb1, X11, X1
	VMAXPS        X1, X11, X11
	VBROADCASTSS  X11, Z11

	// Pass 2: exponentials, float64 sum.
	VPXORQ Z14, Z14, Z14
	MOVQ   SI, R8
	MOVQ   DX, R9

e16:
	TESTQ   R9, R9
	JZ      e16tail
	VMOVUPS (R8), Z0
	VSUBPS  Z11, Z0, Z0
	VMAXPS  Z0, Z8, Z0
	EXP16(Z0, Z1, Z2, Z3)
	VMOVUPS Z1, (R8)
	ADDPD16(Z1, Y1, Z14, Z2, Y2)
	ADDQ    $64, R8
	DECQ    R9
	JMP     e16

e16tail:
	VMOVUPS.Z (R8), K1, Z0
	VSUBPS    Z11, Z0, Z0
	VMAXPS    Z0, Z8, Z0
	EXP16(Z0, Z1, Z2, Z3)
	VMOVAPS.Z Z1, K1, Z1       // lanes past n add nothing
	VMOVUPS   Z1, K1, (R8)
	ADDPD16(Z1, Y1, Z14, Z2, Y2)

	VEXTRACTF64X4 $1, Z14, Y15
	VADDPD        Y15, Y14, Y14
	VEXTRACTF128  $1, Y14, X1
	VADDPD        X1, X14, X14
	VPERMILPD     $1, X14, X1
	VADDSD        X1, X14, X14
	VMOVSD        softmaxOne512<>(SB), X1
	VDIVSD        X14, X1, X1  // 1/Σ
	VCVTSD2SS     X1, X1, X1
	VBROADCASTSS  X1, Z12

	// Pass 3: normalise into p.
	MOVQ SI, R8
	MOVQ DX, R9

n16:
	TESTQ   R9, R9
	JZ      n16tail
	VMULPS  (R8), Z12, Z0
	VMOVUPS Z0, (DI)
	ADDQ    $64, R8
	ADDQ    $64, DI
	DECQ    R9
	JMP     n16

n16tail:
	VMOVUPS.Z (R8), K1, Z0
	VMULPS    Z12, Z0, Z0
	VMOVUPS   Z0, K1, (DI)
	VZEROUPPER
	RET

DATA softmaxOne512<>+0(SB)/8, $0x3ff0000000000000
GLOBL softmaxOne512<>(SB), RODATA|NOPTR, $8

// GRAD8(P, DP, OUT) is one half-block of pass 2: OUT (8 floats, Y) =
// float32(p·(dp − dot)·scale) from the 8 floats P and DP (Y registers or
// memory); dot in Z13, scale in Z12; clobbers Z0, Z1.
#define GRAD8(P, DP, OUT) \
	VCVTPS2PD P, Z0;         \
	VCVTPS2PD DP, Z1;        \
	VSUBPD    Z13, Z1, Z1;   \
	VMULPD    Z1, Z0, Z0;    \
	VMULPD    Z12, Z0, Z0;   \
	VCVTPD2PS Z0, OUT

// func softmaxGradRowAVX512(p, dp *float32, n int, scale float64, da *float32)
//
// softmaxGradRowAVX2 on 16 lanes: dot = Σ p·dp and da[s] =
// float32(p[s]·(dp[s] − dot)·scale), in float64, for s < n ≥ 1.
TEXT ·softmaxGradRowAVX512(SB), NOSPLIT, $0-40
	MOVQ         p+0(FP), SI
	MOVQ         dp+8(FP), BX
	MOVQ         n+16(FP), CX
	VBROADCASTSD scale+24(FP), Z12
	MOVQ         da+32(FP), DI
	TAILMASK

	// Pass 1: dot, one 8-lane accumulator.
	VPXORQ Z14, Z14, Z14
	MOVQ   SI, R8
	MOVQ   BX, R10
	MOVQ   DX, R9

d16:
	TESTQ       R9, R9
	JZ          d16tail
	VCVTPS2PD   (R8), Z0
	VCVTPS2PD   (R10), Z1
	VFMADD231PD Z1, Z0, Z14
	VCVTPS2PD   32(R8), Z2
	VCVTPS2PD   32(R10), Z3
	VFMADD231PD Z3, Z2, Z14
	ADDQ        $64, R8
	ADDQ        $64, R10
	DECQ        R9
	JMP         d16

d16tail:
	VMOVUPS.Z     (R8), K1, Z4   // masked lanes 0: they add nothing
	VMOVUPS.Z     (R10), K1, Z5
	VCVTPS2PD     Y4, Z0
	VCVTPS2PD     Y5, Z1
	VFMADD231PD   Z1, Z0, Z14
	VEXTRACTF64X4 $1, Z4, Y4
	VEXTRACTF64X4 $1, Z5, Y5
	VCVTPS2PD     Y4, Z2
	VCVTPS2PD     Y5, Z3
	VFMADD231PD   Z3, Z2, Z14
	VEXTRACTF64X4 $1, Z14, Y15
	VADDPD        Y15, Y14, Y14
	VEXTRACTF128  $1, Y14, X1
	VADDPD        X1, X14, X14
	VPERMILPD     $1, X14, X1
	VADDSD        X1, X14, X14
	VBROADCASTSD  X14, Z13

	// Pass 2: da = p·(dp − dot)·scale.
	MOVQ SI, R8
	MOVQ BX, R10
	MOVQ DX, R9

g16:
	TESTQ         R9, R9
	JZ            g16tail
	GRAD8((R8), (R10), Y6)
	GRAD8(32(R8), 32(R10), Y7)
	VINSERTF64X4  $1, Y7, Z6, Z6
	VMOVUPS       Z6, (DI)
	ADDQ          $64, R8
	ADDQ          $64, R10
	ADDQ          $64, DI
	DECQ          R9
	JMP           g16

g16tail:
	VMOVUPS.Z     (R8), K1, Z4
	VMOVUPS.Z     (R10), K1, Z5
	GRAD8(Y4, Y5, Y6)
	VEXTRACTF64X4 $1, Z4, Y4
	VEXTRACTF64X4 $1, Z5, Y5
	GRAD8(Y4, Y5, Y7)
	VINSERTF64X4  $1, Y7, Z6, Z6
	VMOVUPS       Z6, K1, (DI)
	VZEROUPPER
	RET
