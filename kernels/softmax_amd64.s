//go:build !noasm

#include "exp_amd64.h"

DATA softmaxOne<>+0(SB)/8, $0x3ff0000000000000
GLOBL softmaxOne<>(SB), RODATA|NOPTR, $8

// func softmaxRowAVX2(x *float32, n int, scale float32, p *float32)
//
// One attention row (attention.go): x[s] *= scale, m = max x, x[s] =
// e^(x[s] − m) (the shared EXP8; x − m ≤ 0, clamped at −88), Σ in float64
// (two 4-lane accumulators), p[s] = x[s]·float32(1/Σ), for s < n ≥ 1. Whole
// blocks of 8, then the last n mod 8 lanes through a mask (nothing past n
// is read or written). A NaN makes Σ, so the whole row, NaN.
TEXT ·softmaxRowAVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS scale+16(FP), Y12
	MOVQ         p+24(FP), DI
	MOVQ         CX, AX
	ANDQ         $7, AX
	NEGQ         AX
	LEAQ         tailMask<>(SB), BX
	VMOVUPS      32(BX)(AX*4), Y10 // first n mod 8 lanes set (none when 0)
	MOVQ         CX, DX
	SHRQ         $3, DX            // whole blocks
	VMOVUPS      negInf<>(SB), Y13
	VMOVUPS      Y13, Y11          // running max
	VMOVUPS      expLo<>(SB), Y8

	// Pass 1: scale, max.
	MOVQ SI, R8
	MOVQ DX, R9

scale8:
	TESTQ   R9, R9
	JZ      scaletail
	VMULPS  (R8), Y12, Y0
	VMOVUPS Y0, (R8)
	VMAXPS  Y0, Y11, Y11
	ADDQ    $32, R8
	DECQ    R9
	JMP     scale8

scaletail:
	VMASKMOVPS (R8), Y10, Y0
	VMULPS     Y12, Y0, Y0
	VMASKMOVPS Y0, Y10, (R8)
	VBLENDVPS  Y10, Y0, Y13, Y1 // lanes past n: −Inf
	VMAXPS     Y1, Y11, Y11

	VEXTRACTF128 $1, Y11, X1
	VMAXPS       X1, X11, X11
	VPERMILPS    $0x4e, X11, X1
	VMAXPS       X1, X11, X11
	VPERMILPS    $0xb1, X11, X1
	VMAXPS       X1, X11, X11
	VBROADCASTSS X11, Y11

	// Pass 2: exponentials, float64 sum.
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	MOVQ   SI, R8
	MOVQ   DX, R9

exp8:
	TESTQ        R9, R9
	JZ           exptail
	VMOVUPS      (R8), Y0
	VSUBPS       Y11, Y0, Y0
	VMAXPS       Y0, Y8, Y0
	EXP8(Y0, Y1, Y2, Y3)
	VMOVUPS      Y1, (R8)
	VCVTPS2PD    X1, Y2
	VADDPD       Y2, Y14, Y14
	VEXTRACTF128 $1, Y1, X3
	VCVTPS2PD    X3, Y3
	VADDPD       Y3, Y15, Y15
	ADDQ         $32, R8
	DECQ         R9
	JMP          exp8

exptail:
	VMASKMOVPS   (R8), Y10, Y0
	VSUBPS       Y11, Y0, Y0
	VMAXPS       Y0, Y8, Y0
	EXP8(Y0, Y1, Y2, Y3)
	VANDPS       Y10, Y1, Y1    // lanes past n add nothing
	VMASKMOVPS   Y1, Y10, (R8)
	VCVTPS2PD    X1, Y2
	VADDPD       Y2, Y14, Y14
	VEXTRACTF128 $1, Y1, X3
	VCVTPS2PD    X3, Y3
	VADDPD       Y3, Y15, Y15

	VADDPD       Y15, Y14, Y14
	VEXTRACTF128 $1, Y14, X1
	VADDPD       X1, X14, X14
	VPERMILPD    $1, X14, X1
	VADDSD       X1, X14, X14
	VMOVSD       softmaxOne<>(SB), X1
	VDIVSD       X14, X1, X1    // 1/Σ
	VCVTSD2SS    X1, X1, X1
	VBROADCASTSS X1, Y12

	// Pass 3: normalise into p.
	MOVQ SI, R8
	MOVQ DX, R9

norm8:
	TESTQ   R9, R9
	JZ      normtail
	VMULPS  (R8), Y12, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    R9
	JMP     norm8

normtail:
	VMASKMOVPS (R8), Y10, Y0
	VMULPS     Y12, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VZEROUPPER
	RET

// func softmaxGradRowAVX2(p, dp *float32, n int, scale float64, da *float32)
//
// The softmax backward of one attention row: dot = Σ p·dp and da[s] =
// float32(p[s]·(dp[s] − dot)·scale), all in float64 (4 lanes at a time,
// the dot in two 4-lane partial sums), for s < n ≥ 1; the last n mod 8
// lanes through a mask.
TEXT ·softmaxGradRowAVX2(SB), NOSPLIT, $0-40
	MOVQ         p+0(FP), SI
	MOVQ         dp+8(FP), BX
	MOVQ         n+16(FP), CX
	VBROADCASTSD scale+24(FP), Y12
	MOVQ         da+32(FP), DI
	MOVQ         CX, AX
	ANDQ         $7, AX
	NEGQ         AX
	LEAQ         tailMask<>(SB), DX
	VMOVUPS      32(DX)(AX*4), Y10
	MOVQ         CX, DX
	SHRQ         $3, DX

	// Pass 1: dot.
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	MOVQ   SI, R8
	MOVQ   BX, R10
	MOVQ   DX, R9

dot8:
	TESTQ       R9, R9
	JZ          dottail
	VCVTPS2PD   (R8), Y0
	VCVTPS2PD   (R10), Y1
	VFMADD231PD Y1, Y0, Y14
	VCVTPS2PD   16(R8), Y2
	VCVTPS2PD   16(R10), Y3
	VFMADD231PD Y3, Y2, Y15
	ADDQ        $32, R8
	ADDQ        $32, R10
	DECQ        R9
	JMP         dot8

dottail:
	VMASKMOVPS   (R8), Y10, Y4   // masked lanes 0: they add nothing
	VMASKMOVPS   (R10), Y10, Y5
	VCVTPS2PD    X4, Y0
	VCVTPS2PD    X5, Y1
	VFMADD231PD  Y1, Y0, Y14
	VEXTRACTF128 $1, Y4, X4
	VEXTRACTF128 $1, Y5, X5
	VCVTPS2PD    X4, Y2
	VCVTPS2PD    X5, Y3
	VFMADD231PD  Y3, Y2, Y15

	VADDPD       Y15, Y14, Y14
	VEXTRACTF128 $1, Y14, X1
	VADDPD       X1, X14, X14
	VPERMILPD    $1, X14, X1
	VADDSD       X1, X14, X14
	VBROADCASTSD X14, Y13        // dot

	// Pass 2: da = p·(dp − dot)·scale.
	MOVQ SI, R8
	MOVQ BX, R10
	MOVQ DX, R9

grad8:
	TESTQ       R9, R9
	JZ          gradtail
	VCVTPS2PD   (R8), Y0
	VCVTPS2PD   (R10), Y1
	VSUBPD      Y13, Y1, Y1
	VMULPD      Y1, Y0, Y0
	VMULPD      Y12, Y0, Y0
	VCVTPD2PSY  Y0, X0
	VCVTPS2PD   16(R8), Y2
	VCVTPS2PD   16(R10), Y3
	VSUBPD      Y13, Y3, Y3
	VMULPD      Y3, Y2, Y2
	VMULPD      Y12, Y2, Y2
	VCVTPD2PSY  Y2, X2
	VINSERTF128 $1, X2, Y0, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, R8
	ADDQ        $32, R10
	ADDQ        $32, DI
	DECQ        R9
	JMP         grad8

gradtail:
	VMASKMOVPS   (R8), Y10, Y4
	VMASKMOVPS   (R10), Y10, Y5
	VCVTPS2PD    X4, Y0
	VCVTPS2PD    X5, Y1
	VSUBPD       Y13, Y1, Y1
	VMULPD       Y1, Y0, Y0
	VMULPD       Y12, Y0, Y0
	VCVTPD2PSY   Y0, X0
	VEXTRACTF128 $1, Y4, X4
	VEXTRACTF128 $1, Y5, X5
	VCVTPS2PD    X4, Y2
	VCVTPS2PD    X5, Y3
	VSUBPD       Y13, Y3, Y3
	VMULPD       Y3, Y2, Y2
	VMULPD       Y12, Y2, Y2
	VCVTPD2PSY   Y2, X2
	VINSERTF128  $1, X2, Y0, Y0
	VMASKMOVPS   Y0, Y10, (DI)
	VZEROUPPER
	RET

// func prefetchFloats(p *float32, n int)
// Asks for the cache lines of p[0:n] (n ≥ 1) to be brought into L1.
TEXT ·prefetchFloats(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*4), CX

pfloop:
	PREFETCHT0 (SI)
	ADDQ       $64, SI
	CMPQ       SI, CX
	JLT        pfloop
	RET
