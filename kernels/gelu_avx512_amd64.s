//go:build !noasm

#include "exp_amd64.h"

// AVX-512 versions of gelu_amd64.s: 16 values a step, the float32 exp on
// all 16 lanes (EXP16) and the float64 stages on two 8-double halves, then
// a last block of 8 with the exp on 8 lanes (EXP8); every operation the
// AVX2 version's in the same order, so the results are bitwise equal.

#define BCAST8D(name, bits) \
	DATA name+0(SB)/8, bits; \
	DATA name+8(SB)/8, bits; \
	DATA name+16(SB)/8, bits; \
	DATA name+24(SB)/8, bits; \
	DATA name+32(SB)/8, bits; \
	DATA name+40(SB)/8, bits; \
	DATA name+48(SB)/8, bits; \
	DATA name+56(SB)/8, bits; \
	GLOBL name(SB), RODATA|NOPTR, $64

BCAST8D(g5M2K<>, $0xbff9884533d43651) // −2·√(2/π)
BCAST8D(g5A<>, $0x3fa6e4e26d4801f7)   // 0.044715
BCAST8D(g5A3<>, $0x3fc12ba9d1f60179)  // 3·0.044715
BCAST8D(g5K2<>, $0x3ff9884533d43651)  // 2·√(2/π)
BCAST8D(g5One<>, $0x3ff0000000000000) // 1.0

// ARG2(XD, U) sets the doubles U = −2·√(2/π)·(x + a·x³) for the doubles
// XD: the exponent of EXPZ512 and EXPZ16.
#define ARG2(XD, U) \
	VMULPD g5A<>(SB), XD, U;   \
	VMULPD XD, U, U;           \
	VMULPD XD, U, U;           \
	VADDPD XD, U, U;           \
	VMULPD g5M2K<>(SB), U, U

// EXPZ512 sets Y6 = e^z (float32 ×8) for the x in Y0 (Z1 = x as doubles),
// +Inf where z is past the exp's range; clobbers Z1, Z3, Y5, Y7, Y11.
#define EXPZ512 \
	VCVTPS2PD  Y0, Z1;             \
	ARG2(Z1, Z3);                  \
	VCVTPD2PS  Z3, Y3;             \
	VMAXPS     Y3, Y8, Y3;         \
	VCMPPS     $0x1e, Y9, Y3, Y5;  \
	EXP8(Y3, Y6, Y7, Y11);         \
	VBLENDVPS  Y5, Y10, Y6, Y6

// EXPZ16 is EXPZ512 on the 16 floats of Z0: Z1 and Z16 = their two halves
// as doubles, Z6 = e^z (+Inf past the exp's range); 16-lane constants in
// Z18 (−88), Z19 (exp's upper limit), Z20 (+Inf); clobbers Z3, Z7, Z11,
// Z17, K2.
#define EXPZ16 \
	VCVTPS2PD     Y0, Z1;           \
	VEXTRACTF64X4 $1, Z0, Y16;      \
	VCVTPS2PD     Y16, Z16;         \
	ARG2(Z1, Z3);                   \
	ARG2(Z16, Z17);                 \
	VCVTPD2PS     Z3, Y3;           \
	VCVTPD2PS     Z17, Y17;         \
	VINSERTF64X4  $1, Y17, Z3, Z3;  \
	VMAXPS        Z3, Z18, Z3;      \
	VCMPPS        $0x1e, Z19, Z3, K2; \
	EXP16(Z3, Z6, Z7, Z11);         \
	VMOVAPS       Z20, K2, Z6

// CONST16 loads EXPZ16's constants.
#define CONST16 \
	VBROADCASTSS expLo<>(SB), Z18;  \
	VBROADCASTSS expHi<>(SB), Z19;  \
	VBROADCASTSS posInf<>(SB), Z20

// func geluFwdAVX512(x, y *float32, n int)
TEXT ·geluFwdAVX512(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    y+8(FP), DI
	MOVQ    n+16(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPS expOne<>(SB), Y12
	VMOVUPS negMax<>(SB), Y13
	VXORPS  Y14, Y14, Y14
	CONST16
	VBROADCASTSS expOne<>(SB), Z21
	VBROADCASTSS negMax<>(SB), Z22
	VPXORD       Z23, Z23, Z23

	// 16 values at a time, then a last 8 in f5loop.
f16loop:
	CMPQ      CX, $16
	JL        f5loop
	VMOVUPS   (SI), Z0
	EXPZ16
	VADDPS    Z21, Z6, Z6
	VDIVPS    Z6, Z0, Z7
	VCMPPS    $0x11, Z22, Z0, K3
	VMOVAPS   Z23, K3, Z7
	VMOVUPS   Z7, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       f16loop

f5loop:
	CMPQ      CX, $8
	JL        f5done
	VMOVUPS   (SI), Y0
	EXPZ512
	VADDPS    Y12, Y6, Y6
	VDIVPS    Y6, Y0, Y7
	VCMPPS    $0x11, Y13, Y0, Y5
	VBLENDVPS Y5, Y14, Y7, Y7
	VMOVUPS   Y7, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       f5loop

f5done:
	VZEROUPPER
	RET

// GRAD8(E, XD, DY, DX, S, D, SS, P, T, DY8) is the gradient of 8 values
// (b5loop's, and each half of b16loop's): e (8 floats in E), x as doubles
// (XD), dy at DY, dx to DX; S, D, SS, P, T are scratch (D's low half is
// DY8); one in Z12, zero in Z14; clobbers K1.
#define GRAD8(E, XD, DY, DX, S, D, SS, P, T, DY8) \
	VCVTPS2PD  E, S;               \
	VADDPD     Z12, S, S;          \
	VDIVPD     S, Z12, S;          \
	VSUBPD     S, Z12, SS;         \
	VMULPD     S, SS, SS;          \
	VMULPD     g5A3<>(SB), XD, P;  \
	VMULPD     XD, P, P;           \
	VADDPD     Z12, P, P;          \
	VMULPD     SS, XD, T;          \
	VMULPD     g5K2<>(SB), T, T;   \
	VMULPD     P, T, T;            \
	VCMPPD     $0x00, Z14, SS, K1; \
	VMOVAPD    Z14, K1, T;         \
	VADDPD     T, S, S;            \
	VCVTPS2PD  DY, D;              \
	VMULPD     S, D, D;            \
	VCVTPD2PS  D, DY8;             \
	VMOVUPS    DY8, DX

// func geluBwdAVX512(x, dy, dx *float32, n int)
// As geluBwdAVX2's GRADHALF on all 8 lanes: s = 1/(1+e), ss = s(1−s),
// g = s + [ss ≠ 0]·x·ss·2k·(1 + 3a·x²), dx = float32(dy·g), in float64.
TEXT ·geluBwdAVX512(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    dy+8(FP), BX
	MOVQ    dx+16(FP), DI
	MOVQ    n+24(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPD g5One<>(SB), Z12
	VPXORQ  Z14, Z14, Z14
	CONST16

	// 16 values at a time (two halves of 8 doubles), then a last 8 in
	// b5loop.
b16loop:
	CMPQ          CX, $16
	JL            b5loop
	VMOVUPS       (SI), Z0
	EXPZ16                           // Z1, Z16 = x as doubles, Z6 = e
	VEXTRACTF64X4 $1, Z6, Y24
	GRAD8(Y6, Z1, (BX), (DI), Z3, Z4, Z5, Z7, Z11, Y4)
	GRAD8(Y24, Z16, 32(BX), 32(DI), Z25, Z26, Z27, Z28, Z29, Y26)
	ADDQ          $64, SI
	ADDQ          $64, BX
	ADDQ          $64, DI
	SUBQ          $16, CX
	JMP           b16loop

b5loop:
	CMPQ       CX, $8
	JL         b5done
	VMOVUPS    (SI), Y0
	EXPZ512                          // Z1 = x as doubles, Y6 = e
	GRAD8(Y6, Z1, (BX), (DI), Z3, Z4, Z5, Z7, Z11, Y4)
	ADDQ       $32, SI
	ADDQ       $32, BX
	ADDQ       $32, DI
	SUBQ       $8, CX
	JMP        b5loop

b5done:
	VZEROUPPER
	RET

// func geluFwdExpAVX512(x, y, e *float32, n int)
// geluFwdAVX512 that also stores the exponentials e = e^z it divides by.
TEXT ·geluFwdExpAVX512(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    y+8(FP), DI
	MOVQ    e+16(FP), DX
	MOVQ    n+24(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPS expOne<>(SB), Y12
	VMOVUPS negMax<>(SB), Y13
	VXORPS  Y14, Y14, Y14
	CONST16
	VBROADCASTSS expOne<>(SB), Z21
	VBROADCASTSS negMax<>(SB), Z22
	VPXORD       Z23, Z23, Z23

xf16loop:
	CMPQ      CX, $16
	JL        xf5loop
	VMOVUPS   (SI), Z0
	EXPZ16
	VMOVUPS   Z6, (DX)
	VADDPS    Z21, Z6, Z6
	VDIVPS    Z6, Z0, Z7
	VCMPPS    $0x11, Z22, Z0, K3
	VMOVAPS   Z23, K3, Z7
	VMOVUPS   Z7, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $64, DX
	SUBQ      $16, CX
	JMP       xf16loop

xf5loop:
	CMPQ      CX, $8
	JL        xf5done
	VMOVUPS   (SI), Y0
	EXPZ512
	VMOVUPS   Y6, (DX)
	VADDPS    Y12, Y6, Y6
	VDIVPS    Y6, Y0, Y7
	VCMPPS    $0x11, Y13, Y0, Y5
	VBLENDVPS Y5, Y14, Y7, Y7
	VMOVUPS   Y7, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $32, DX
	SUBQ      $8, CX
	JMP       xf5loop

xf5done:
	VZEROUPPER
	RET

// func geluBwdExpAVX512(x, e, dy, dx *float32, n int)
// geluBwdAVX512 with the exponentials e read (geluFwdExpAVX512's) instead
// of computed: 8 values at a time through GRAD8.
TEXT ·geluBwdExpAVX512(SB), NOSPLIT, $0-40
	MOVQ    x+0(FP), SI
	MOVQ    e+8(FP), R8
	MOVQ    dy+16(FP), BX
	MOVQ    dx+24(FP), DI
	MOVQ    n+32(FP), CX
	VMOVUPD g5One<>(SB), Z12
	VPXORQ  Z14, Z14, Z14

xb8loop:
	CMPQ      CX, $8
	JL        xb8done
	VCVTPS2PD (SI), Z1
	VMOVUPS   (R8), Y6
	GRAD8(Y6, Z1, (BX), (DI), Z3, Z4, Z5, Z7, Z11, Y4)
	ADDQ      $32, SI
	ADDQ      $32, R8
	ADDQ      $32, BX
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       xb8loop

xb8done:
	VZEROUPPER
	RET
