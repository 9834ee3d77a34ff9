//go:build !noasm

#include "exp_amd64.h"

// The GELU kernels of gelu.go, 8 lanes at a time, with the same staging as
// the Go loop: the exp argument z = −2·√(2/π)·(x + 0.044715·x³) in float64
// (two halves of 4 lanes), rounded to float32 for the shared EXP8, and, for
// the backward, σ and gelu' in float64 again. n is a multiple of 8; the
// caller does the tail.

#define BCAST4D(name, bits) \
	DATA name+0(SB)/8, bits; \
	DATA name+8(SB)/8, bits; \
	DATA name+16(SB)/8, bits; \
	DATA name+24(SB)/8, bits; \
	GLOBL name(SB), RODATA|NOPTR, $32

BCAST4D(geluM2K<>, $0xbff9884533d43651) // −2·√(2/π)
BCAST4D(geluA<>, $0x3fa6e4e26d4801f7)   // 0.044715
BCAST4D(geluA3<>, $0x3fc12ba9d1f60179)  // 3·0.044715
BCAST4D(geluK2<>, $0x3ff9884533d43651)  // 2·√(2/π)
BCAST4D(geluOne<>, $0x3ff0000000000000) // 1.0

// ZHALF sets D (4 doubles) to z for the 4 floats in XS: widen, then
// ((a·d)·d)·d + d, times −2k, as the Go expression evaluates it.
#define ZHALF(XS, D, T) \
	VCVTPS2PD XS, D;             \
	VMULPD    geluA<>(SB), D, T; \
	VMULPD    D, T, T;           \
	VMULPD    D, T, T;           \
	VADDPD    D, T, T;           \
	VMULPD    geluM2K<>(SB), T, T

// EXPZ sets Y6 = e^z (float32 ×8) for the x in Y0, with +Inf where z is
// past the exp's range; clobbers Y1..Y5, Y7, Y11.
#define EXPZ \
	ZHALF(X0, Y1, Y3);              \
	VEXTRACTF128 $1, Y0, X2;        \
	ZHALF(X2, Y2, Y4);              \
	VCVTPD2PSY   Y3, X3;            \
	VCVTPD2PSY   Y4, X4;            \
	VINSERTF128  $1, X4, Y3, Y3;    \
	VMAXPS       Y3, Y8, Y3;        \
	VCMPPS       $0x1e, Y9, Y3, Y5; \
	EXP8(Y3, Y6, Y7, Y11);          \
	VBLENDVPS    Y5, Y10, Y6, Y6

// func geluFwdAVX2(x, y *float32, n int)
// y = x/(1 + e^z) in float32; −Inf gives 0 (the limit), NaN stays NaN.
TEXT ·geluFwdAVX2(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    y+8(FP), DI
	MOVQ    n+16(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPS expOne<>(SB), Y12
	VMOVUPS negMax<>(SB), Y13
	VXORPS  Y14, Y14, Y14

fwdloop:
	CMPQ      CX, $8
	JL        fwddone
	VMOVUPS   (SI), Y0
	EXPZ
	VADDPS    Y12, Y6, Y6
	VDIVPS    Y6, Y0, Y7           // Y7 = x/(1 + e)
	VCMPPS    $0x11, Y13, Y0, Y5   // x < −MaxFloat32: −Inf
	VBLENDVPS Y5, Y14, Y7, Y7
	VMOVUPS   Y7, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       fwdloop

fwddone:
	VZEROUPPER
	RET

// GRADHALF sets XO (4 floats) to dy·gelu'(x) for one half: D the 4 x as
// doubles, XE the 4 e^z as floats, XD the 4 dy as floats. With s = 1/(1+e),
// g = s + x·s(1−s)·2k·(1 + 3a·x²), the second term dropped where s(1−s) is
// exactly 0 (so ±Inf meet no 0·Inf). Clobbers Y3, Y4, Y5, Y7, Y11.
#define GRADHALF(D, XE, XD, XO) \
	VCVTPS2PD  XE, Y3;              \
	VADDPD     Y12, Y3, Y3;         \
	VDIVPD     Y3, Y12, Y3;         \
	VSUBPD     Y3, Y12, Y5;         \
	VMULPD     Y3, Y5, Y5;          \
	VMULPD     geluA3<>(SB), D, Y7; \
	VMULPD     D, Y7, Y7;           \
	VADDPD     Y12, Y7, Y7;         \
	VMULPD     Y5, D, Y11;          \
	VMULPD     geluK2<>(SB), Y11, Y11; \
	VMULPD     Y7, Y11, Y11;        \
	VCMPPD     $0x00, Y14, Y5, Y4;  \
	VBLENDVPD  Y4, Y14, Y11, Y11;   \
	VADDPD     Y11, Y3, Y3;         \
	VCVTPS2PD  XD, Y4;              \
	VMULPD     Y3, Y4, Y4;          \
	VCVTPD2PSY Y4, XO

// func geluBwdAVX2(x, dy, dx *float32, n int)
TEXT ·geluBwdAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    dy+8(FP), BX
	MOVQ    dx+16(FP), DI
	MOVQ    n+24(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPD geluOne<>(SB), Y12
	VXORPD  Y14, Y14, Y14

bwdloop:
	CMPQ         CX, $8
	JL           bwddone
	VMOVUPS      (SI), Y0
	EXPZ
	VMOVUPS      (BX), Y13          // dy
	VCVTPS2PD    X0, Y1             // x low as doubles
	GRADHALF(Y1, X6, X13, X15)
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD    X2, Y1             // x high
	VEXTRACTF128 $1, Y6, X6
	VEXTRACTF128 $1, Y13, X13
	GRADHALF(Y1, X6, X13, X2)
	VINSERTF128  $1, X2, Y15, Y15
	VMOVUPS      Y15, (DI)
	ADDQ         $32, SI
	ADDQ         $32, BX
	ADDQ         $32, DI
	SUBQ         $8, CX
	JMP          bwdloop

bwddone:
	VZEROUPPER
	RET

// func geluFwdExpAVX2(x, y, e *float32, n int)
// geluFwdAVX2 that also stores the exponentials e = e^z it divides by.
TEXT ·geluFwdExpAVX2(SB), NOSPLIT, $0-32
	MOVQ    x+0(FP), SI
	MOVQ    y+8(FP), DI
	MOVQ    e+16(FP), BX
	MOVQ    n+24(FP), CX
	VMOVUPS expLo<>(SB), Y8
	VMOVUPS expHi<>(SB), Y9
	VMOVUPS posInf<>(SB), Y10
	VMOVUPS expOne<>(SB), Y12
	VMOVUPS negMax<>(SB), Y13
	VXORPS  Y14, Y14, Y14

kfwdloop:
	CMPQ      CX, $8
	JL        kfwddone
	VMOVUPS   (SI), Y0
	EXPZ
	VMOVUPS   Y6, (BX)
	VADDPS    Y12, Y6, Y6
	VDIVPS    Y6, Y0, Y7
	VCMPPS    $0x11, Y13, Y0, Y5
	VBLENDVPS Y5, Y14, Y7, Y7
	VMOVUPS   Y7, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $32, BX
	SUBQ      $8, CX
	JMP       kfwdloop

kfwddone:
	VZEROUPPER
	RET

// func geluBwdExpAVX2(x, e, dy, dx *float32, n int)
// geluBwdAVX2 with the exponentials e read (geluFwdExpAVX2's) instead of
// computed.
TEXT ·geluBwdExpAVX2(SB), NOSPLIT, $0-40
	MOVQ    x+0(FP), SI
	MOVQ    e+8(FP), R8
	MOVQ    dy+16(FP), BX
	MOVQ    dx+24(FP), DI
	MOVQ    n+32(FP), CX
	VMOVUPD geluOne<>(SB), Y12
	VXORPD  Y14, Y14, Y14

kbwdloop:
	CMPQ         CX, $8
	JL           kbwddone
	VMOVUPS      (SI), Y0
	VMOVUPS      (R8), Y6
	VMOVUPS      (BX), Y13
	VCVTPS2PD    X0, Y1
	GRADHALF(Y1, X6, X13, X15)
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD    X2, Y1
	VEXTRACTF128 $1, Y6, X6
	VEXTRACTF128 $1, Y13, X13
	GRADHALF(Y1, X6, X13, X2)
	VINSERTF128  $1, X2, Y15, Y15
	VMOVUPS      Y15, (DI)
	ADDQ         $32, SI
	ADDQ         $32, R8
	ADDQ         $32, BX
	ADDQ         $32, DI
	SUBQ         $8, CX
	JMP          kbwdloop

kbwddone:
	VZEROUPPER
	RET
