//go:build !noasm

#include "textflag.h"

// func elementwiseAVX2(op int, x, y, z *float32, n int)
// z[i] = x[i] ∘ y[i] for i < n, n a positive multiple of 8; op 0 +, 1 −,
// 2 ·, 3 /. Each block of 8 is loaded before it is stored, so z may be x
// or y.
TEXT ·elementwiseAVX2(SB), NOSPLIT, $0-40
	MOVQ op+0(FP), AX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), BX
	MOVQ z+24(FP), DI
	MOVQ n+32(FP), CX
	SHRQ $3, CX
	CMPQ AX, $1
	JEQ  esub
	CMPQ AX, $2
	JEQ  emul
	CMPQ AX, $3
	JEQ  ediv

eadd:
	VMOVUPS (SI), Y0
	VADDPS  (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     eadd
	JMP     edone

esub:
	VMOVUPS (SI), Y0
	VSUBPS  (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     esub
	JMP     edone

emul:
	VMOVUPS (SI), Y0
	VMULPS  (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     emul
	JMP     edone

ediv:
	VMOVUPS (SI), Y0
	VDIVPS  (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, BX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     ediv

edone:
	VZEROUPPER
	RET
