//go:build !noasm

#include "textflag.h"

// AVX2/FMA kernels chosen by useAVX2 (attention_amd64.go): the two products
// of attention_gemv.go, whose Go wrappers check every bound first (lengths
// multiples of 8 and ≥ 8), the 8-lane exp of expShift (attention_exp.go),
// and the CPUID/XGETBV probes that decide whether they may run.

// func gemvTAVX2(x, at []float32, ld, n int, y []float32)
// y[s] = Σ_i x[i]·at[i·ld + s], s < n. 32 columns at a time (four
// independent accumulators), then 8 at a time.
TEXT ·gemvTAVX2(SB), NOSPLIT, $0-88
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ at_base+24(FP), DI
	MOVQ ld+48(FP), R8
	SHLQ $2, R8
	MOVQ n+56(FP), R9
	MOVQ y_base+64(FP), DX
	XORQ R10, R10

tloop32:
	LEAQ 32(R10), R11
	CMPQ R11, R9
	JGT  tloop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ (DI)(R10*4), R12
	MOVQ SI, R13
	MOVQ CX, R14

tinner32:
	VBROADCASTSS (R13), Y4
	VFMADD231PS  (R12), Y4, Y0
	VFMADD231PS  32(R12), Y4, Y1
	VFMADD231PS  64(R12), Y4, Y2
	VFMADD231PS  96(R12), Y4, Y3
	ADDQ         $4, R13
	ADDQ         R8, R12
	DECQ         R14
	JNZ          tinner32
	VMOVUPS      Y0, (DX)(R10*4)
	VMOVUPS      Y1, 32(DX)(R10*4)
	VMOVUPS      Y2, 64(DX)(R10*4)
	VMOVUPS      Y3, 96(DX)(R10*4)
	MOVQ         R11, R10
	JMP          tloop32

tloop8:
	CMPQ   R10, R9
	JGE    tdone
	VXORPS Y0, Y0, Y0
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

tinner8:
	VBROADCASTSS (R13), Y4
	VFMADD231PS  (R12), Y4, Y0
	ADDQ         $4, R13
	ADDQ         R8, R12
	DECQ         R14
	JNZ          tinner8
	VMOVUPS      Y0, (DX)(R10*4)
	ADDQ         $8, R10
	JMP          tloop8

tdone:
	VZEROUPPER
	RET

// func gemvNAVX2(p, a []float32, n int, y []float32)
// y[j] = Σ_{s<n} p[s]·a[s·hdp + j], hdp = len(y). Blocks of 32 columns
// (four accumulators, s in order); then blocks of 8 columns with s unrolled
// by four into four accumulators summed at the end ((a0+a1)+(a2+a3)).
TEXT ·gemvNAVX2(SB), NOSPLIT, $0-80
	MOVQ p_base+0(FP), SI
	MOVQ a_base+24(FP), DI
	MOVQ n+48(FP), CX
	MOVQ y_base+56(FP), DX
	MOVQ y_len+64(FP), R8
	MOVQ R8, R9
	SHLQ $2, R9               // row stride in bytes
	XORQ R10, R10             // column j

nloop32:
	LEAQ   32(R10), R11
	CMPQ   R11, R8
	JGT    nloop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14
	TESTQ  R14, R14
	JZ     nstore32

ninner32:
	VBROADCASTSS (R13), Y4
	VFMADD231PS  (R12), Y4, Y0
	VFMADD231PS  32(R12), Y4, Y1
	VFMADD231PS  64(R12), Y4, Y2
	VFMADD231PS  96(R12), Y4, Y3
	ADDQ         $4, R13
	ADDQ         R9, R12
	DECQ         R14
	JNZ          ninner32

nstore32:
	VMOVUPS Y0, (DX)(R10*4)
	VMOVUPS Y1, 32(DX)(R10*4)
	VMOVUPS Y2, 64(DX)(R10*4)
	VMOVUPS Y3, 96(DX)(R10*4)
	MOVQ    R11, R10
	JMP     nloop32

nloop8:
	CMPQ   R10, R8
	JGE    ndone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

ninner8x4:
	CMPQ         R14, $4
	JLT          ninner8x1
	VBROADCASTSS (R13), Y4
	VBROADCASTSS 4(R13), Y5
	VBROADCASTSS 8(R13), Y6
	VBROADCASTSS 12(R13), Y7
	VFMADD231PS  (R12), Y4, Y0
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y5, Y1
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y6, Y2
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y7, Y3
	ADDQ         R9, R12
	ADDQ         $16, R13
	SUBQ         $4, R14
	JMP          ninner8x4

ninner8x1:
	TESTQ        R14, R14
	JZ           nstore8
	VBROADCASTSS (R13), Y4
	VFMADD231PS  (R12), Y4, Y0
	ADDQ         R9, R12
	ADDQ         $4, R13
	DECQ         R14
	JMP          ninner8x1

nstore8:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DX)(R10*4)
	ADDQ    $8, R10
	JMP     nloop8

ndone:
	VZEROUPPER
	RET
