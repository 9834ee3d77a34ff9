//go:build !noasm

#include "textflag.h"

// AVX-512 versions of attention_gemv.go's two products, used where the CPU
// has AVX-512F (cpu.go's switch). Each output element is summed exactly as
// in the AVX2 versions (attention_amd64.s), so the results are bitwise
// theirs: gemvT sums every column over i in order, in one accumulator;
// gemvN16 (rows of 16, the head size of the small and base presets) keeps
// the AVX2 8-column path's four accumulators over s mod 4, the remainder in
// the first, summed (a0 + a1) + (a2 + a3).

// func gemvTAVX512(x, at []float32, ld, n int, y []float32)
// y[s] = Σ_i x[i]·at[i·ld + s], s < n (n a multiple of 8): 64 columns at a
// time in four 16-lane accumulators, then 16, then 8.
TEXT ·gemvTAVX512(SB), NOSPLIT, $0-88
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ at_base+24(FP), DI
	MOVQ ld+48(FP), R8
	SHLQ $2, R8
	MOVQ n+56(FP), R9
	MOVQ y_base+64(FP), DX
	XORQ R10, R10

z64:
	LEAQ   64(R10), R11
	CMPQ   R11, R9
	JGT    z16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

z64inner:
	VBROADCASTSS (R13), Z4
	VFMADD231PS  (R12), Z4, Z0
	VFMADD231PS  64(R12), Z4, Z1
	VFMADD231PS  128(R12), Z4, Z2
	VFMADD231PS  192(R12), Z4, Z3
	ADDQ         $4, R13
	ADDQ         R8, R12
	DECQ         R14
	JNZ          z64inner
	VMOVUPS      Z0, (DX)(R10*4)
	VMOVUPS      Z1, 64(DX)(R10*4)
	VMOVUPS      Z2, 128(DX)(R10*4)
	VMOVUPS      Z3, 192(DX)(R10*4)
	MOVQ         R11, R10
	JMP          z64

z16:
	LEAQ   16(R10), R11
	CMPQ   R11, R9
	JGT    z8
	VPXORD Z0, Z0, Z0
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

z16inner:
	VBROADCASTSS (R13), Z4
	VFMADD231PS  (R12), Z4, Z0
	ADDQ         $4, R13
	ADDQ         R8, R12
	DECQ         R14
	JNZ          z16inner
	VMOVUPS      Z0, (DX)(R10*4)
	MOVQ         R11, R10
	JMP          z16

z8:
	CMPQ   R10, R9
	JGE    zdone
	VXORPS Y0, Y0, Y0
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

z8inner:
	VBROADCASTSS (R13), Y4
	VFMADD231PS  (R12), Y4, Y0
	ADDQ         $4, R13
	ADDQ         R8, R12
	DECQ         R14
	JNZ          z8inner
	VMOVUPS      Y0, (DX)(R10*4)

zdone:
	VZEROUPPER
	RET

// func gemvN16AVX512(p, a []float32, n int, y []float32)
// y[j] = Σ_{s<n} p[s]·a[s·16 + j], j < 16.
TEXT ·gemvN16AVX512(SB), NOSPLIT, $0-80
	MOVQ   p_base+0(FP), SI
	MOVQ   a_base+24(FP), DI
	MOVQ   n+48(FP), CX
	MOVQ   y_base+56(FP), DX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

n16x4:
	CMPQ         CX, $4
	JLT          n16x1
	VBROADCASTSS (SI), Z4
	VBROADCASTSS 4(SI), Z5
	VBROADCASTSS 8(SI), Z6
	VBROADCASTSS 12(SI), Z7
	VFMADD231PS  (DI), Z4, Z0
	VFMADD231PS  64(DI), Z5, Z1
	VFMADD231PS  128(DI), Z6, Z2
	VFMADD231PS  192(DI), Z7, Z3
	ADDQ         $256, DI
	ADDQ         $16, SI
	SUBQ         $4, CX
	JMP          n16x4

n16x1:
	TESTQ        CX, CX
	JZ           n16store
	VBROADCASTSS (SI), Z4
	VFMADD231PS  (DI), Z4, Z0
	ADDQ         $64, DI
	ADDQ         $4, SI
	DECQ         CX
	JMP          n16x1

n16store:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z2, Z0, Z0
	VMOVUPS Z0, (DX)
	VZEROUPPER
	RET
