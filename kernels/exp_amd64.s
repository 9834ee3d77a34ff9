//go:build !noasm

#include "exp_amd64.h"

// func expAVX2(dst, src []float32)
// dst[i] = e^src[i] for i < len(src); len(dst) ≥ len(src) is checked by Exp.
TEXT ·expAVX2(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    src_base+24(FP), SI
	MOVQ    src_len+32(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10

loop2:
	CMPQ      CX, $16
	JL        loop
	VMOVUPS   (SI), Y0
	VMOVUPS   32(SI), Y5
	VMAXPS    Y0, Y8, Y0
	VMAXPS    Y5, Y8, Y5
	VCMPPS    $0x1e, Y9, Y0, Y4
	VCMPPS    $0x1e, Y9, Y5, Y11
	EXP8X2(Y0, Y1, Y2, Y3, Y5, Y6, Y7, Y12, Y13)
	VBLENDVPS Y4, Y10, Y1, Y1
	VBLENDVPS Y11, Y10, Y6, Y6
	VMOVUPS   Y1, (DI)
	VMOVUPS   Y6, 32(DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop2

loop:
	CMPQ      CX, $8
	JL        tail
	VMOVUPS   (SI), Y0
	VMAXPS    Y0, Y8, Y0           // clamp at −88; NaN stays NaN
	VCMPPS    $0x1e, Y9, Y0, Y4    // Y4 = x > hi (ordered: false for NaN)
	EXP8(Y0, Y1, Y2, Y3)
	VBLENDVPS Y4, Y10, Y1, Y1      // +Inf where x > hi
	VMOVUPS   Y1, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       loop

tail:
	TESTQ      CX, CX
	JZ         done
	LEAQ       tailMask<>(SB), BX
	NEGQ       CX
	VMOVUPS    32(BX)(CX*4), Y5    // first r lanes set
	VMASKMOVPS (SI), Y5, Y0
	VMAXPS     Y0, Y8, Y0
	VCMPPS     $0x1e, Y9, Y0, Y4
	EXP8(Y0, Y1, Y2, Y3)
	VBLENDVPS  Y4, Y10, Y1, Y1
	VMASKMOVPS Y1, Y5, (DI)

done:
	VZEROUPPER
	RET

// func logAVX2(dst, src []float32)
// dst[i] = log src[i] for positive normal src[i]; len(dst) ≥ len(src).
TEXT ·logAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX

logLoop:
	CMPQ    CX, $8
	JL      logTail
	VMOVUPS (SI), Y0
	LOG8(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     logLoop

logTail:
	TESTQ      CX, CX
	JZ         logDone
	LEAQ       tailMask<>(SB), BX
	NEGQ       CX
	VMOVUPS    32(BX)(CX*4), Y5
	VMOVUPS    expOne<>(SB), Y0
	VMASKMOVPS (SI), Y5, Y6
	VBLENDVPS  Y5, Y6, Y0, Y0            // 1 in the unused lanes
	LOG8(Y0, Y1, Y2, Y3, Y4)
	VMASKMOVPS Y1, Y5, (DI)

logDone:
	VZEROUPPER
	RET
