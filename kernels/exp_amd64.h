// The AVX2/FMA float32 exponential shared by the kernels' assembly; the
// algorithm and its accuracy are documented in exp.go (exp32 is the same
// steps in Go). Each constant is broadcast to 8 lanes so it can be an FMA's
// memory operand.

#include "textflag.h"

#define BCAST8(name, bits) \
	DATA name+0(SB)/4, bits; \
	DATA name+4(SB)/4, bits; \
	DATA name+8(SB)/4, bits; \
	DATA name+12(SB)/4, bits; \
	DATA name+16(SB)/4, bits; \
	DATA name+20(SB)/4, bits; \
	DATA name+24(SB)/4, bits; \
	DATA name+28(SB)/4, bits; \
	GLOBL name(SB), RODATA|NOPTR, $32

BCAST8(expLog2e<>, $0x3fb8aa3b)
BCAST8(expMagic<>, $0x4b40007f)   // 1.5·2²³ + 127
BCAST8(expLn2Hi<>, $0x3f317200)
BCAST8(expLn2Lo<>, $0x35bfbe8e)
BCAST8(expC2<>, $0x3efffffe)
BCAST8(expC3<>, $0x3e2aaa0d)
BCAST8(expC4<>, $0x3d2aac11)
BCAST8(expC5<>, $0x3c0933c1)
BCAST8(expC6<>, $0x3ab57398)
BCAST8(expOne<>, $0x3f800000)     // also c1
BCAST8(expLo<>, $0xc2b00000)      // −88: clamp, gives exactly +0
BCAST8(expHi<>, $0x42b0c0a5)      // 88.376259: above it, +Inf
BCAST8(negInf<>, $0xff800000)
BCAST8(posInf<>, $0x7f800000)
BCAST8(negMax<>, $0xff7fffff)     // −MaxFloat32

// log: coefficients of q(u), log(1+u) ≈ u − u²/2 + u³·q(u) on
// u ∈ [√½−1, √2−1] (degree-7 minimax fit, float32), and the bit masks.
BCAST8(logQ0<>, $0x3eaaaaaa)
BCAST8(logQ1<>, $0xbe800113)
BCAST8(logQ2<>, $0x3e4cd004)
BCAST8(logQ3<>, $0xbe2a3922)
BCAST8(logQ4<>, $0x3e116d0e)
BCAST8(logQ5<>, $0xbe06c2a1)
BCAST8(logQ6<>, $0x3e02adb5)
BCAST8(logQ7<>, $0xbd9c5ac0)
BCAST8(logSqrtHalf<>, $0x3f3504f3)
BCAST8(logMant<>, $0x007fffff)
BCAST8(logMinusHalf<>, $0xbf000000)

// tailMask<>+(8−r)·4 loads a mask whose first r lanes are set (r = 1..7).
DATA tailMask<>+0(SB)/4, $0xffffffff
DATA tailMask<>+4(SB)/4, $0xffffffff
DATA tailMask<>+8(SB)/4, $0xffffffff
DATA tailMask<>+12(SB)/4, $0xffffffff
DATA tailMask<>+16(SB)/4, $0xffffffff
DATA tailMask<>+20(SB)/4, $0xffffffff
DATA tailMask<>+24(SB)/4, $0xffffffff
DATA tailMask<>+28(SB)/4, $0xffffffff
DATA tailMask<>+32(SB)/4, $0
DATA tailMask<>+36(SB)/4, $0
DATA tailMask<>+40(SB)/4, $0
DATA tailMask<>+44(SB)/4, $0
DATA tailMask<>+48(SB)/4, $0
DATA tailMask<>+52(SB)/4, $0
DATA tailMask<>+56(SB)/4, $0
DATA tailMask<>+60(SB)/4, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $64

// EXP8 sets E = e^X for 8 lanes; X must already be clamped below at −88
// (VMAXPS X, lo, X keeps NaN) and is preserved; T1, T2 are clobbered.
// Valid for X ≤ 88.376; the caller masks larger inputs if it can see them.
#define EXP8(X, E, T1, T2) \
	VMOVUPS      expLog2e<>(SB), E; \
	VFMADD213PS  expMagic<>(SB), X, E; \
	VSUBPS       expMagic<>(SB), E, T1; \
	VMOVAPS      X, T2; \
	VFNMADD231PS expLn2Hi<>(SB), T1, T2; \
	VFNMADD231PS expLn2Lo<>(SB), T1, T2; \
	VMOVUPS      expC6<>(SB), T1; \
	VFMADD213PS  expC5<>(SB), T2, T1; \
	VFMADD213PS  expC4<>(SB), T2, T1; \
	VFMADD213PS  expC3<>(SB), T2, T1; \
	VFMADD213PS  expC2<>(SB), T2, T1; \
	VFMADD213PS  expOne<>(SB), T2, T1; \
	VFMADD213PS  expOne<>(SB), T2, T1; \
	VPSLLD       $23, E, E; \
	VMULPS       T1, E, E

// EXP16 is EXP8 on 16 lanes of Z registers (AVX-512), the same operations
// in the same order, so bitwise EXP8's results lane by lane; constants are
// broadcast from their first lane (EVEX embedded broadcast).
#define EXP16(X, E, T1, T2) \
	VBROADCASTSS      expLog2e<>(SB), E;    \
	VFMADD213PS.BCST  expMagic<>(SB), X, E; \
	VSUBPS.BCST       expMagic<>(SB), E, T1; \
	VMOVAPS           X, T2;                \
	VFNMADD231PS.BCST expLn2Hi<>(SB), T1, T2; \
	VFNMADD231PS.BCST expLn2Lo<>(SB), T1, T2; \
	VBROADCASTSS      expC6<>(SB), T1;      \
	VFMADD213PS.BCST  expC5<>(SB), T2, T1;  \
	VFMADD213PS.BCST  expC4<>(SB), T2, T1;  \
	VFMADD213PS.BCST  expC3<>(SB), T2, T1;  \
	VFMADD213PS.BCST  expC2<>(SB), T2, T1;  \
	VFMADD213PS.BCST  expOne<>(SB), T2, T1; \
	VFMADD213PS.BCST  expOne<>(SB), T2, T1; \
	VPSLLD            $23, E, E;            \
	VMULPS            T1, E, E

// EXP8X2 is EXP8 on two independent vectors, interleaved instruction by
// instruction so the out-of-order core always has two chains to work on
// (EXP8's dependent chain is about 40 cycles long), and loading each
// constant once into C for both: with memory operands the loads (two
// 256-bit per cycle) were the bottleneck.
#define EXP8X2(X, E, T1, T2, XB, EB, T1B, T2B, C) \
	VMOVUPS      expMagic<>(SB), C; \
	VMOVUPS      expLog2e<>(SB), T1; \
	VMOVAPS      C, E; \
	VMOVAPS      C, EB; \
	VFMADD231PS  T1, X, E; \
	VFMADD231PS  T1, XB, EB; \
	VSUBPS       C, E, T1; \
	VSUBPS       C, EB, T1B; \
	VMOVUPS      expLn2Hi<>(SB), C; \
	VMOVAPS      X, T2; \
	VMOVAPS      XB, T2B; \
	VFNMADD231PS C, T1, T2; \
	VFNMADD231PS C, T1B, T2B; \
	VMOVUPS      expLn2Lo<>(SB), C; \
	VFNMADD231PS C, T1, T2; \
	VFNMADD231PS C, T1B, T2B; \
	VMOVUPS      expC6<>(SB), T1; \
	VMOVAPS      T1, T1B; \
	VMOVUPS      expC5<>(SB), C; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VMOVUPS      expC4<>(SB), C; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VMOVUPS      expC3<>(SB), C; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VMOVUPS      expC2<>(SB), C; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VMOVUPS      expOne<>(SB), C; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VFMADD213PS  C, T2, T1; \
	VFMADD213PS  C, T2B, T1B; \
	VPSLLD       $23, E, E; \
	VPSLLD       $23, EB, EB; \
	VMULPS       T1, E, E; \
	VMULPS       T1B, EB, EB

// LOG8 sets Y = log X for 8 positive normal floats (other inputs give
// unspecified values); X is preserved, K, U, T clobbered. x = 2^k·f with
// f ∈ [√½, √2) (from the bits of x − bits of √½), u = f − 1,
// log x = k·ln2 + u − u²/2 + u³·q(u), smallest terms added first.
#define LOG8(X, Y, K, U, T) \
	VPSUBD      logSqrtHalf<>(SB), X, K; \
	VPAND       logMant<>(SB), K, U; \
	VPADDD      logSqrtHalf<>(SB), U, U; \
	VPSRAD      $23, K, K; \
	VCVTDQ2PS   K, K; \
	VSUBPS      expOne<>(SB), U, U; \
	VMOVUPS     logQ7<>(SB), Y; \
	VFMADD213PS logQ6<>(SB), U, Y; \
	VFMADD213PS logQ5<>(SB), U, Y; \
	VFMADD213PS logQ4<>(SB), U, Y; \
	VFMADD213PS logQ3<>(SB), U, Y; \
	VFMADD213PS logQ2<>(SB), U, Y; \
	VFMADD213PS logQ1<>(SB), U, Y; \
	VFMADD213PS logQ0<>(SB), U, Y; \
	VMULPS      U, Y, Y; \
	VMULPS      U, Y, Y; \
	VMULPS      U, Y, Y; \
	VMULPS      U, U, T; \
	VFMADD231PS logMinusHalf<>(SB), T, Y; \
	VADDPS      U, Y, Y; \
	VFMADD231PS expLn2Lo<>(SB), K, Y; \
	VFMADD231PS expLn2Hi<>(SB), K, Y
