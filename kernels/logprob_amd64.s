//go:build !noasm

#include "exp_amd64.h"

// Row loops of the token log-prob kernels (see logprob_fast.go for how the
// Go side drives them and finishes each row). x is (rows, v), row-major.
//
// Forward, per row, one pass over memory in blocks of 256 elements (1 KiB,
// so the block's second read hits L1): take the block max bm; if bm > m,
// rescale the running sums to the new shift (α = e^(m−bm): s ← α·s,
// t ← α·(t + (m−bm)·s)) and set m = bm; then add e^(x−m) to s and
// e^(x−m)·(x−m) to t. Two accumulator pairs hide the add latency.

// Y8 = −88 (exp clamp), Y9 = −Inf, Y10 = tail mask, Y11..Y14 = t1, s1, t0, s0,
// Y15 = m broadcast. ACC1 processes the 8 floats at mem with temps Y0..Y3.
#define LSE_ACC(mem, S, T, D, E, T1, T2) \
	VMOVUPS     mem, D; \
	VSUBPS      Y15, D, D; \
	VMAXPS      D, Y8, D; \
	EXP8(D, E, T1, T2); \
	VADDPS      E, S, S; \
	VFMADD231PS D, E, T

// LSE_TAILLOAD loads the row's last v%8 floats into D with −Inf elsewhere.
#define LSE_TAILLOAD(mem, D) \
	VMASKMOVPS mem, Y10, D; \
	VBLENDVPS  Y10, D, Y9, D

// func lseRowsAVX2(x *float32, v, rows int, out *float32)
// out is (rows, 3): m, s = Σ e^(x−m), t = Σ e^(x−m)·(x−m), where m is
// max(row, −MaxFloat32) unless a NaN hid a larger value (then s is NaN).
TEXT ·lseRowsAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    v+8(FP), CX
	MOVQ    rows+16(FP), DX
	MOVQ    out+24(FP), DI
	MOVQ    CX, AX
	ANDQ    $7, AX
	NEGQ    AX
	LEAQ    tailMask<>(SB), BX
	VMOVUPS 32(BX)(AX*4), Y10
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS negInf<>(SB), Y9

fwdRow:
	TESTQ        DX, DX
	JZ           fwdDone
	VBROADCASTSS negMax<>(SB), Y15
	VXORPS       Y11, Y11, Y11
	VXORPS       Y12, Y12, Y12
	VXORPS       Y13, Y13, Y13
	VXORPS       Y14, Y14, Y14
	MOVQ         CX, R8                  // elements left in the row

fwdBlock:
	TESTQ  R8, R8
	JZ     fwdRowDone
	MOVQ   $256, R9
	CMPQ   R8, R9
	CMOVQLT R8, R9                       // R9 = block length

	// Block max into Y0 (two accumulators), then horizontally into X0.
	VMOVUPS Y9, Y0
	VMOVUPS Y9, Y1
	MOVQ    R9, R10
	SHRQ    $3, R10                      // full vectors in the block
	MOVQ    SI, BX

fwdMax2:
	CMPQ   R10, $2
	JL     fwdMax1
	VMAXPS (BX), Y0, Y0
	VMAXPS 32(BX), Y1, Y1
	ADDQ   $64, BX
	SUBQ   $2, R10
	JMP    fwdMax2

fwdMax1:
	TESTQ  R10, R10
	JZ     fwdMaxTail
	VMAXPS (BX), Y0, Y0
	ADDQ   $32, BX

fwdMaxTail:
	MOVQ   R9, R11
	ANDQ   $7, R11
	JZ     fwdMaxReduce
	LSE_TAILLOAD((BX), Y2)
	VMAXPS Y2, Y0, Y0

fwdMaxReduce:
	VMAXPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VUCOMISS     X15, X0
	JBE          fwdExp                  // bm ≤ m or unordered: keep m

	// New max: δ = max(m − bm, −88), α = e^δ; t ← α(t + δs); s ← αs; m ← bm.
	VBROADCASTSS X0, Y0
	VSUBPS       Y0, Y15, Y1
	VMAXPS       Y1, Y8, Y1
	EXP8(Y1, Y2, Y3, Y4)
	VFMADD231PS  Y1, Y14, Y12
	VFMADD231PS  Y1, Y13, Y11
	VMULPS       Y2, Y12, Y12
	VMULPS       Y2, Y11, Y11
	VMULPS       Y2, Y14, Y14
	VMULPS       Y2, Y13, Y13
	VMOVAPS      Y0, Y15

fwdExp:
	MOVQ R9, R10
	SHRQ $3, R10

fwdExp2:
	CMPQ R10, $2
	JL   fwdExp1
	LSE_ACC((SI), Y14, Y12, Y0, Y1, Y2, Y3)
	LSE_ACC(32(SI), Y13, Y11, Y4, Y5, Y6, Y7)
	ADDQ $64, SI
	SUBQ $2, R10
	JMP  fwdExp2

fwdExp1:
	TESTQ R10, R10
	JZ    fwdExpTail
	LSE_ACC((SI), Y14, Y12, Y0, Y1, Y2, Y3)
	ADDQ  $32, SI

fwdExpTail:
	MOVQ  R9, R11
	ANDQ  $7, R11
	JZ    fwdBlockDone
	LSE_TAILLOAD((SI), Y4)
	LSE_ACC(Y4, Y14, Y12, Y0, Y1, Y2, Y3)
	LEAQ  (SI)(R11*4), SI

fwdBlockDone:
	SUBQ R9, R8
	JMP  fwdBlock

fwdRowDone:
	VADDPS       Y13, Y14, Y14
	VADDPS       Y11, Y12, Y12
	VEXTRACTF128 $1, Y14, X0
	VADDPS       X0, X14, X14
	VEXTRACTF128 $1, Y12, X1
	VADDPS       X1, X12, X12
	VPERMILPS    $0x4e, X14, X0
	VADDPS       X0, X14, X14
	VPERMILPS    $0x4e, X12, X1
	VADDPS       X1, X12, X12
	VPERMILPS    $0xb1, X14, X0
	VADDSS       X0, X14, X14
	VPERMILPS    $0xb1, X12, X1
	VADDSS       X1, X12, X12
	VMOVSS       X15, (DI)
	VMOVSS       X14, 4(DI)
	VMOVSS       X12, 8(DI)
	ADDQ         $12, DI
	DECQ         DX
	JMP          fwdRow

fwdDone:
	VZEROUPPER
	RET

// Backward, per row with parameters (L, a, b) = (lse, −(g + h·H), −h):
// lp = clamp(x − L, −88, 0), dz = e^lp·(a + b·lp), stored or added to dz.
// The target's +g is added by the Go side. Y12 = 0, Y13..Y15 = b, a, L.
#define DZ_VEC(mem, D, E, T1, T2) \
	VMOVUPS     mem, D; \
	VSUBPS      Y15, D, D; \
	VMAXPS      D, Y8, D; \
	VMINPS      D, Y12, D; \
	EXP8(D, E, T1, T2); \
	VMOVAPS     Y14, T1; \
	VFMADD231PS D, Y13, T1; \
	VMULPS      T1, E, E

// func dzRowsAVX2(x *float32, v, rows int, par *float32, dz *float32, accumulate bool)
// par is (rows, 3): L, a, b as above.
TEXT ·dzRowsAVX2(SB), NOSPLIT, $0-41
	MOVQ    x+0(FP), SI
	MOVQ    v+8(FP), CX
	MOVQ    rows+16(FP), DX
	MOVQ    par+24(FP), R12
	MOVQ    dz+32(FP), DI
	MOVBLZX accumulate+40(FP), R13
	MOVQ    CX, AX
	ANDQ    $7, AX
	MOVQ    AX, R11                      // tail length
	NEGQ    AX
	LEAQ    tailMask<>(SB), BX
	VMOVUPS 32(BX)(AX*4), Y10
	VMOVUPS expLo<>(SB), Y8
	VXORPS  Y12, Y12, Y12
	MOVQ    CX, R9
	SHRQ    $3, R9                       // full vectors per row

bwdRow:
	TESTQ        DX, DX
	JZ           bwdDone
	VBROADCASTSS (R12), Y15
	VBROADCASTSS 4(R12), Y14
	VBROADCASTSS 8(R12), Y13
	MOVQ         R9, R10
	TESTQ        R13, R13
	JNZ          bwdAcc2

bwdSet2:
	CMPQ    R10, $2
	JL      bwdSet1
	DZ_VEC((SI), Y0, Y1, Y2, Y3)
	DZ_VEC(32(SI), Y4, Y5, Y6, Y7)
	VMOVUPS Y1, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $2, R10
	JMP     bwdSet2

bwdSet1:
	TESTQ   R10, R10
	JZ      bwdTail
	DZ_VEC((SI), Y0, Y1, Y2, Y3)
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	JMP     bwdTail

bwdAcc2:
	CMPQ    R10, $2
	JL      bwdAcc1
	DZ_VEC((SI), Y0, Y1, Y2, Y3)
	DZ_VEC(32(SI), Y4, Y5, Y6, Y7)
	VADDPS  (DI), Y1, Y1
	VADDPS  32(DI), Y5, Y5
	VMOVUPS Y1, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $2, R10
	JMP     bwdAcc2

bwdAcc1:
	TESTQ   R10, R10
	JZ      bwdTail
	DZ_VEC((SI), Y0, Y1, Y2, Y3)
	VADDPS  (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI

bwdTail:
	TESTQ      R11, R11
	JZ         bwdRowDone
	VMASKMOVPS (SI), Y10, Y4
	DZ_VEC(Y4, Y0, Y1, Y2, Y3)
	TESTQ      R13, R13
	JZ         bwdTailStore
	VMASKMOVPS (DI), Y10, Y4
	VADDPS     Y4, Y1, Y1

bwdTailStore:
	VMASKMOVPS Y1, Y10, (DI)
	LEAQ       (SI)(R11*4), SI
	LEAQ       (DI)(R11*4), DI

bwdRowDone:
	ADDQ $12, R12
	DECQ DX
	JMP  bwdRow

bwdDone:
	VZEROUPPER
	RET
