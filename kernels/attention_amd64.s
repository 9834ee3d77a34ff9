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

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// Constants of expShiftAVX2, each broadcast from memory.
DATA expc<>+0(SB)/4, $0x3fb8aa3b   // log2(e)
DATA expc<>+4(SB)/4, $0x3f318000   // ln2 hi = 0.693359375 (exact in few bits)
DATA expc<>+8(SB)/4, $0xb95e8083   // ln2 lo = ln2 − hi = −2.12194440e-4
DATA expc<>+12(SB)/4, $0xc2aeac50  // −87.33654: below, e^x is under the smallest normal
DATA expc<>+16(SB)/4, $0x42b00000  // 88: above, clamp (e^88 is finite)
DATA expc<>+20(SB)/4, $0x3f800000  // 1
DATA expc<>+24(SB)/4, $0x3f000000  // 1/2
DATA expc<>+28(SB)/4, $0x3e2aaaab  // 1/6
DATA expc<>+32(SB)/4, $0x3d2aaaab  // 1/24
DATA expc<>+36(SB)/4, $0x3c088889  // 1/120
DATA expc<>+40(SB)/4, $0x3ab60b61  // 1/720
DATA expc<>+44(SB)/4, $0x39500d01  // 1/5040
DATA expc<>+48(SB)/4, $0x0000007f  // 127, the float32 exponent bias
GLOBL expc<>(SB), RODATA|NOPTR, $52

// func expShiftAVX2(x []float32, shift float32)
// x[i] = e^(x[i] − shift) for len(x) a multiple of 8. e^v = 2^n·e^r with
// n = round(v·log2 e), r = v − n·ln2 (ln2 split in two so r is exact to
// float32), e^r by its Taylor polynomial to degree 7 (remainder < 6e-9 on
// |r| ≤ ln2/2). v < −87.34 gives 0, v > 88 gives e^88; NaN stays NaN.
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-28
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS shift+24(FP), Y15
	VBROADCASTSS expc<>+0(SB), Y14
	VBROADCASTSS expc<>+4(SB), Y13
	VBROADCASTSS expc<>+8(SB), Y12
	VBROADCASTSS expc<>+12(SB), Y11
	VBROADCASTSS expc<>+16(SB), Y10
	VBROADCASTSS expc<>+20(SB), Y9
	VPBROADCASTD expc<>+48(SB), Y8
	XORQ         R10, R10

eloop:
	CMPQ R10, CX
	JGE  edone
	VMOVUPS      (SI)(R10*4), Y0
	VSUBPS       Y15, Y0, Y0          // v = x − shift
	VCMPPS       $1, Y11, Y0, Y7      // mask: v < low (false for NaN)
	VMINPS       Y0, Y10, Y0          // min(88, v), NaN kept
	VMULPS       Y14, Y0, Y1
	VROUNDPS     $0, Y1, Y1           // n = round(v·log2 e)
	VFNMADD231PS Y13, Y1, Y0          // r = v − n·hi
	VFNMADD231PS Y12, Y1, Y0          // r −= n·lo
	VBROADCASTSS expc<>+44(SB), Y2    // Horner: p = 1/5040
	VBROADCASTSS expc<>+40(SB), Y3
	VFMADD213PS  Y3, Y0, Y2           // p = p·r + 1/720
	VBROADCASTSS expc<>+36(SB), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS expc<>+32(SB), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS expc<>+28(SB), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS expc<>+24(SB), Y3
	VFMADD213PS  Y3, Y0, Y2
	VFMADD213PS  Y9, Y0, Y2           // p·r + 1
	VFMADD213PS  Y9, Y0, Y2           // p·r + 1 = e^r
	VCVTPS2DQ    Y1, Y1               // n as int32 (exact: |n| ≤ 127)
	VPADDD       Y8, Y1, Y1
	VPSLLD       $23, Y1, Y1          // 2^n as float32 bits
	VMULPS       Y1, Y2, Y2
	VANDNPS      Y2, Y7, Y2           // 0 where v < low
	VMOVUPS      Y2, (SI)(R10*4)
	ADDQ         $8, R10
	JMP          eloop

edone:
	VZEROUPPER
	RET
