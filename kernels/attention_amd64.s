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
// (four accumulators, s in order); then the columns left, 8 at a time,
// with s unrolled by four into four accumulators (the last n mod 4 terms
// into the first) summed at the end ((a0+a1)+(a2+a3)). Two such 8-column
// blocks run side by side while 16 columns are left (eight independent
// chains instead of four, each column's sums the same), then one.
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
	JGT    nloop16
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

nloop16:
	LEAQ   16(R10), R11
	CMPQ   R11, R8
	JGT    nloop8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ   (DI)(R10*4), R12
	MOVQ   SI, R13
	MOVQ   CX, R14

ninner16x4:
	CMPQ         R14, $4
	JLT          ninner16x1
	VBROADCASTSS (R13), Y8
	VBROADCASTSS 4(R13), Y9
	VBROADCASTSS 8(R13), Y10
	VBROADCASTSS 12(R13), Y11
	VFMADD231PS  (R12), Y8, Y0
	VFMADD231PS  32(R12), Y8, Y4
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y9, Y1
	VFMADD231PS  32(R12), Y9, Y5
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y10, Y2
	VFMADD231PS  32(R12), Y10, Y6
	ADDQ         R9, R12
	VFMADD231PS  (R12), Y11, Y3
	VFMADD231PS  32(R12), Y11, Y7
	ADDQ         R9, R12
	ADDQ         $16, R13
	SUBQ         $4, R14
	JMP          ninner16x4

ninner16x1:
	TESTQ        R14, R14
	JZ           nstore16
	VBROADCASTSS (R13), Y8
	VFMADD231PS  (R12), Y8, Y0
	VFMADD231PS  32(R12), Y8, Y4
	ADDQ         R9, R12
	ADDQ         $4, R13
	DECQ         R14
	JMP          ninner16x1

nstore16:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VADDPS  Y5, Y4, Y4
	VADDPS  Y7, Y6, Y6
	VADDPS  Y6, Y4, Y4
	VMOVUPS Y0, (DX)(R10*4)
	VMOVUPS Y4, 32(DX)(R10*4)
	MOVQ    R11, R10
	JMP     nloop16

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

// func transpose8AVX2(dst, src *float32, ldd, lds int)
//
// dst[i·ldd + r] = src[r·lds + i] for r, i < 8: an 8×8 block transposed
// (unpack pairs, shuffle quads, swap 128-bit halves), a plain copy of
// values.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ldd+16(FP), DX
	MOVQ lds+24(FP), CX
	SHLQ $2, DX
	SHLQ $2, CX
	VMOVUPS (SI), Y0
	ADDQ    CX, SI
	VMOVUPS (SI), Y1
	ADDQ    CX, SI
	VMOVUPS (SI), Y2
	ADDQ    CX, SI
	VMOVUPS (SI), Y3
	ADDQ    CX, SI
	VMOVUPS (SI), Y4
	ADDQ    CX, SI
	VMOVUPS (SI), Y5
	ADDQ    CX, SI
	VMOVUPS (SI), Y6
	ADDQ    CX, SI
	VMOVUPS (SI), Y7
	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0  // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1  // a1 b1 c1 d1 | a5 ...
	VSHUFPS $0x44, Y11, Y9, Y2  // a2 ... | a6 ...
	VSHUFPS $0xEE, Y11, Y9, Y3  // a3 ... | a7 ...
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 ...
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0
	VPERM2F128 $0x20, Y5, Y1, Y9  // column 1
	VPERM2F128 $0x20, Y6, Y2, Y10 // column 2
	VPERM2F128 $0x20, Y7, Y3, Y11 // column 3
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13 // column 5
	VPERM2F128 $0x31, Y6, Y2, Y14 // column 6
	VPERM2F128 $0x31, Y7, Y3, Y15 // column 7
	VMOVUPS Y8, (DI)
	ADDQ    DX, DI
	VMOVUPS Y9, (DI)
	ADDQ    DX, DI
	VMOVUPS Y10, (DI)
	ADDQ    DX, DI
	VMOVUPS Y11, (DI)
	ADDQ    DX, DI
	VMOVUPS Y12, (DI)
	ADDQ    DX, DI
	VMOVUPS Y13, (DI)
	ADDQ    DX, DI
	VMOVUPS Y14, (DI)
	ADDQ    DX, DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET
