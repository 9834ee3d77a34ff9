//go:build !noasm

#include "exp_amd64.h"

// Row loops of the token log-prob kernels; logprob.go drives them and
// finishes each row. x is (rows, v), row-major.
//
// Forward, per row, one pass over memory in blocks of 256 logits (1 KiB,
// so the block's second read hits L1): take the block max bm; if bm > m,
// rescale the running sums to the new shift (α = e^(m−bm): s ← α·s,
// t ← α·(t + (m−bm)·s)) and set m = bm; then add e^(x−m) to s and, for the
// entropy, e^(x−m)·(x−m) to t. The first block just sets m. The main loop
// takes 16 logits at a time with EXP8X2 and two accumulator pairs.

// Forward registers: Y8 = −88 (exp clamp), Y9 = EXP8X2's constant, Y10 =
// tail mask, Y11..Y14 = t1, s1, t0, s0, Y15 = m broadcast; Y0..Y7 temps.

// LSE_D2 loads 16 logits at mem, mem2 and sets Y0, Y4 = max(x − m, −88)
// and Y1, Y5 = their exponentials.
#define LSE_D2(mem, mem2) \
	VMOVUPS mem, Y0; \
	VMOVUPS mem2, Y4; \
	VSUBPS  Y15, Y0, Y0; \
	VSUBPS  Y15, Y4, Y4; \
	VMAXPS  Y0, Y8, Y0; \
	VMAXPS  Y4, Y8, Y4; \
	EXP8X2(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y9)

// LSE_D1 is LSE_D2 for 8 logits in register or memory D0 (Y0, Y1 out).
#define LSE_D1(D0) \
	VMOVUPS D0, Y0; \
	VSUBPS  Y15, Y0, Y0; \
	VMAXPS  Y0, Y8, Y0; \
	EXP8(Y0, Y1, Y2, Y3)

// func lseRowsAVX2(x *float32, v, rows int, out *float32, stride int, withEnt bool)
// out is (3, stride): row r's m, s = Σ e^(x−m) and t = Σ e^(x−m)·(x−m)
// (t meaningful only withEnt) go to out[r], out[stride+r], out[2·stride+r].
// m = max(row, −MaxFloat32) unless a NaN hid a larger value (then s is NaN
// anyway).
TEXT ·lseRowsAVX2(SB), NOSPLIT, $0-41
	MOVQ    x+0(FP), SI
	MOVQ    v+8(FP), CX
	MOVQ    rows+16(FP), DX
	MOVQ    out+24(FP), DI
	MOVBLZX withEnt+40(FP), R12
	MOVQ    CX, AX
	ANDQ    $7, AX
	NEGQ    AX
	LEAQ    tailMask<>(SB), BX
	VMOVUPS 32(BX)(AX*4), Y10
	VMOVUPS expLo<>(SB), Y8
	MOVQ    stride+32(FP), AX
	SHLQ    $2, AX                       // AX = stride in bytes

fwdRow:
	TESTQ        DX, DX
	JZ           fwdDone
	VBROADCASTSS negMax<>(SB), Y15
	VXORPS       Y11, Y11, Y11
	VXORPS       Y12, Y12, Y12
	VXORPS       Y13, Y13, Y13
	VXORPS       Y14, Y14, Y14
	MOVQ         CX, R8                  // logits left in the row
	MOVQ         $1, R13                 // first block of the row

fwdBlock:
	TESTQ   R8, R8
	JZ      fwdRowDone
	MOVQ    $256, R9
	CMPQ    R8, R9
	CMOVQLT R8, R9                       // R9 = block length

	// Block max into X0 (two accumulators, then across lanes).
	VMOVUPS negInf<>(SB), Y0
	VMOVUPS Y0, Y1
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
	MOVQ       R9, R11
	ANDQ       $7, R11
	JZ         fwdMaxReduce
	VMASKMOVPS (BX), Y10, Y2             // masked-off lanes read 0: blend −Inf
	VBLENDVPS  Y10, Y2, Y1, Y2           // Y1 lanes are ≤ the block max or −Inf
	VMAXPS     Y2, Y0, Y0

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
	VBROADCASTSS X0, Y0
	TESTQ        R13, R13
	JNZ          fwdSetMax               // first block: the sums are 0

	// New max: δ = max(m − bm, −88), α = e^δ; t ← α(t + δs); s ← αs.
	VSUBPS      Y0, Y15, Y1
	VMAXPS      Y1, Y8, Y1
	EXP8(Y1, Y2, Y3, Y4)
	VFMADD231PS Y1, Y14, Y12
	VFMADD231PS Y1, Y13, Y11
	VMULPS      Y2, Y12, Y12
	VMULPS      Y2, Y11, Y11
	VMULPS      Y2, Y14, Y14
	VMULPS      Y2, Y13, Y13

fwdSetMax:
	VMOVAPS Y0, Y15

fwdExp:
	XORQ  R13, R13
	MOVQ  R9, R10
	SHRQ  $4, R10                        // pairs of vectors
	TESTQ R12, R12
	JNZ   fwdExpEnt2

fwdExp2:
	TESTQ  R10, R10
	JZ     fwdExp1
	LSE_D2((SI), 32(SI))
	VADDPS Y1, Y14, Y14
	VADDPS Y5, Y13, Y13
	ADDQ   $64, SI
	DECQ   R10
	JMP    fwdExp2

fwdExpEnt2:
	TESTQ       R10, R10
	JZ          fwdExp1
	LSE_D2((SI), 32(SI))
	VADDPS      Y1, Y14, Y14
	VADDPS      Y5, Y13, Y13
	VFMADD231PS Y0, Y1, Y12
	VFMADD231PS Y4, Y5, Y11
	ADDQ        $64, SI
	DECQ        R10
	JMP         fwdExpEnt2

fwdExp1:
	TESTQ       $8, R9
	JZ          fwdExpTail
	LSE_D1((SI))
	VADDPS      Y1, Y14, Y14
	VFMADD231PS Y0, Y1, Y12              // t is ignored without entropy
	ADDQ        $32, SI

fwdExpTail:
	MOVQ        R9, R11
	ANDQ        $7, R11
	JZ          fwdBlockDone
	VMASKMOVPS  (SI), Y10, Y4
	VMOVUPS     negInf<>(SB), Y5
	VBLENDVPS   Y10, Y4, Y5, Y4          // −Inf beyond the row: e = 0
	LSE_D1(Y4)
	VADDPS      Y1, Y14, Y14
	VFMADD231PS Y0, Y1, Y12
	LEAQ        (SI)(R11*4), SI

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
	VMOVSS       X14, (DI)(AX*1)
	VMOVSS       X12, (DI)(AX*2)
	ADDQ         $4, DI
	DECQ         DX
	JMP          fwdRow

fwdDone:
	VZEROUPPER
	RET

// Backward, per row with parameters (L, a, b) = (lse, −(g + h·H), −h):
// lp = clamp(x − L, −88, 0), dz = e^lp·(a + b·lp) (just e^lp·a without
// entropy), stored or added to dz. The target's +g is added by the Go side.
// Registers: Y8 = −88, Y9 = EXP8X2's constant, Y10 = tail mask, Y12 = 0,
// Y13..Y15 = b, a, L broadcast; Y0..Y7 temps.

// DZ_LP2 loads 16 logits and sets Y0, Y4 = lp and Y1, Y5 = e^lp.
#define DZ_LP2 \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y4; \
	VSUBPS  Y15, Y0, Y0; \
	VSUBPS  Y15, Y4, Y4; \
	VMAXPS  Y0, Y8, Y0; \
	VMAXPS  Y4, Y8, Y4; \
	VMINPS  Y0, Y12, Y0; \
	VMINPS  Y4, Y12, Y4; \
	EXP8X2(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y9)

// DZ_ENT2 turns Y1, Y5 into e^lp·(a + b·lp).
#define DZ_ENT2 \
	VMOVAPS     Y14, Y2; \
	VMOVAPS     Y14, Y6; \
	VFMADD231PS Y0, Y13, Y2; \
	VFMADD231PS Y4, Y13, Y6; \
	VMULPS      Y2, Y1, Y1; \
	VMULPS      Y6, Y5, Y5

// DZ_SET2 / DZ_ADD2 / DZ_NT2 store Y1, Y5 at DI (DZ_ADD2 adds the old
// values first; DZ_NT2 uses non-temporal stores, DI 32-byte aligned) and
// advance SI, DI.
#define DZ_NEXT2 \
	ADDQ $64, SI; \
	ADDQ $64, DI

#define DZ_SET2 \
	VMOVUPS Y1, (DI); \
	VMOVUPS Y5, 32(DI); \
	DZ_NEXT2

#define DZ_ADD2 \
	VADDPS  (DI), Y1, Y1; \
	VADDPS  32(DI), Y5, Y5; \
	DZ_SET2

#define DZ_NT2 \
	VMOVNTPS Y1, (DI); \
	VMOVNTPS Y5, 32(DI); \
	DZ_NEXT2

// DZ_NOENT2 is e^lp·a, the formula when b = 0.
#define DZ_NOENT2 \
	VMULPS Y14, Y1, Y1; \
	VMULPS Y14, Y5, Y5

// func dzRowsAVX2(x *float32, v, rows int, par *float32, dz *float32, mode int)
// par is (rows, 3): L, a, b as above. mode bits: 1 accumulate, 2 entropy
// (b ≠ 0), 4 non-temporal stores (not with 1; needs dz 32-byte aligned and
// v a multiple of 8).
TEXT ·dzRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ    x+0(FP), SI
	MOVQ    v+8(FP), CX
	MOVQ    rows+16(FP), DX
	MOVQ    par+24(FP), R12
	MOVQ    dz+32(FP), DI
	MOVQ    mode+40(FP), R13
	MOVQ    CX, AX
	ANDQ    $7, AX
	MOVQ    AX, R11                      // tail length
	NEGQ    AX
	LEAQ    tailMask<>(SB), BX
	VMOVUPS 32(BX)(AX*4), Y10
	VMOVUPS expLo<>(SB), Y8
	VXORPS  Y12, Y12, Y12

bwdRow:
	TESTQ        DX, DX
	JZ           bwdDone
	VBROADCASTSS (R12), Y15
	VBROADCASTSS 4(R12), Y14
	VBROADCASTSS 8(R12), Y13
	MOVQ         CX, R10
	SHRQ         $4, R10                 // pairs of vectors
	CMPQ         R13, $0
	JEQ          bwdSet
	CMPQ         R13, $1
	JEQ          bwdAdd
	CMPQ         R13, $2
	JEQ          bwdEntSet
	CMPQ         R13, $3
	JEQ          bwdEntAdd
	CMPQ         R13, $4
	JEQ          bwdSetNT
	JMP          bwdEntSetNT

bwdSet:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_NOENT2
	DZ_SET2
	DECQ  R10
	JMP   bwdSet

bwdAdd:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_NOENT2
	DZ_ADD2
	DECQ  R10
	JMP   bwdAdd

bwdSetNT:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_NOENT2
	DZ_NT2
	DECQ  R10
	JMP   bwdSetNT

bwdEntSet:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_ENT2
	DZ_SET2
	DECQ  R10
	JMP   bwdEntSet

bwdEntAdd:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_ENT2
	DZ_ADD2
	DECQ  R10
	JMP   bwdEntAdd

bwdEntSetNT:
	TESTQ R10, R10
	JZ    bwdOne
	DZ_LP2
	DZ_ENT2
	DZ_NT2
	DECQ  R10
	JMP   bwdEntSetNT

	// The last odd vector and the tail, one 8-lane vector each; with b = 0
	// (no entropy) the general formula gives e^lp·a.
bwdOne:
	TESTQ       $8, CX
	JZ          bwdTail
	VMOVUPS     (SI), Y0
	VSUBPS      Y15, Y0, Y0
	VMAXPS      Y0, Y8, Y0
	VMINPS      Y0, Y12, Y0
	EXP8(Y0, Y1, Y2, Y3)
	VMOVAPS     Y14, Y2
	VFMADD231PS Y0, Y13, Y2
	VMULPS      Y2, Y1, Y1
	TESTQ       $1, R13
	JZ          bwdOneStore
	VADDPS      (DI), Y1, Y1

bwdOneStore:
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI

bwdTail:
	TESTQ       R11, R11
	JZ          bwdRowDone
	VMASKMOVPS  (SI), Y10, Y0
	VSUBPS      Y15, Y0, Y0
	VMAXPS      Y0, Y8, Y0
	VMINPS      Y0, Y12, Y0
	EXP8(Y0, Y1, Y2, Y3)
	VMOVAPS     Y14, Y2
	VFMADD231PS Y0, Y13, Y2
	VMULPS      Y2, Y1, Y1
	TESTQ       $1, R13
	JZ          bwdTailStore
	VMASKMOVPS  (DI), Y10, Y4
	VADDPS      Y4, Y1, Y1

bwdTailStore:
	VMASKMOVPS Y1, Y10, (DI)
	LEAQ       (SI)(R11*4), SI
	LEAQ       (DI)(R11*4), DI

bwdRowDone:
	ADDQ $12, R12
	DECQ DX
	JMP  bwdRow

bwdDone:
	SFENCE                               // order the non-temporal stores
	VZEROUPPER
	RET
