//go:build !noasm

#include "textflag.h"
#include "neon_arm64.h"
#include "exp_arm64.h"

// The GELU loops of gelu.go in NEON, four values a step (n a positive
// multiple of 4; gelu.go does the rest in Go). Each step does the Go loop's
// operations in its precisions, with fused multiply-adds exactly where the
// Go compiler fuses them on arm64, so the results are bitwise the Go
// path's there (TestGELUNEONMatchesGoBitwise):
//
//	z = float32(−2K·fma(A·x·x, x, x))     float64 (x widened, two lanes a vector)
//	e = e^z                               EXP4, float32
//	forward:  y = x/(1 + e), 0 where x = −Inf
//	backward: s = 1/(1 + e), g = fma((x·s(1−s))·2K, fma(3A·x, x, 1), s),
//	          1 or 0 where x = ±Inf, dx = float32(dy·g)     float64
//
// K = √(2/π), A = 0.044715. Registers: V16–V28 EXP4's constants, V29 A,
// V30 −2K (float64 lanes), V6 x, V7/V8 its float64 halves.

// GELUZ sets V0 = z from V6 = x (V7, V8 = x widened; V2, V3 clobbered).
#define GELUZ \
	FCVTL(6, 7); \
	FCVTL2(6, 8); \
	DMUL2(7, 29, 2); \
	DMUL2(7, 2, 2); \
	VORR  V7.B16, V7.B16, V3.B16; \
	VFMLA V2.D2, V7.D2, V3.D2; \
	DMUL2(3, 30, 3); \
	FCVTN(3, 0); \
	DMUL2(8, 29, 2); \
	DMUL2(8, 2, 2); \
	VORR  V8.B16, V8.B16, V3.B16; \
	VFMLA V2.D2, V8.D2, V3.D2; \
	DMUL2(3, 30, 3); \
	FCVTN2(3, 0)

#define GELUCONSTS(r) \
	EXPCONSTS(r); \
	MOVD $0x3fa6e4e26d4801f7, r; VDUP r, V29.D2; \
	MOVD $0xbff9884533d43651, r; VDUP r, V30.D2

// func geluFwdNEON(x, y *float32, n int)
TEXT ·geluFwdNEON(SB), NOSPLIT, $0-24
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD n+16(FP), R2
	LSR  $2, R2, R2
	GELUCONSTS(R3)
	MOVW $0xff7fffff, R3 // −MaxFloat32
	VDUP R3, V31.S4

fwd:
	VLD1.P 16(R0), [V6.S4]
	GELUZ
	EXP4
	FADD4(25, 1, 2)   // 1 + e
	FDIV4(2, 6, 2)    // x/(1 + e)
	FCMGT4(6, 31, 3)  // x < −MaxFloat32: x = −Inf
	VBIC16(3, 2, 2)   // its limit, 0
	VST1.P [V2.S4], 16(R1)
	SUBS   $1, R2, R2
	BNE    fwd
	RET

// func geluBwdNEON(x, dy, dx *float32, n int)
TEXT ·geluBwdNEON(SB), NOSPLIT, $0-32
	MOVD x+0(FP), R0
	MOVD dy+8(FP), R1
	MOVD dx+16(FP), R2
	MOVD n+24(FP), R4
	LSR  $2, R4, R4
	GELUCONSTS(R3)
	FMOVD $1.0, F9
	VDUP  V9.D[0], V9.D2
	MOVD  $0x3ff9884533d43651, R3 // 2K
	VDUP  R3, V10.D2
	MOVD  $0x3fc12ba9d1f60179, R3 // 3A
	VDUP  R3, V11.D2
	MOVD  $0x47efffffe0000000, R3 // MaxFloat32
	VDUP  R3, V12.D2
	MOVD  $0xc7efffffe0000000, R3 // −MaxFloat32
	VDUP  R3, V13.D2

bwd:
	VLD1.P 16(R0), [V6.S4]
	VLD1.P 16(R1), [V14.S4]
	GELUZ
	EXP4
	FCVTL(1, 2)  // e, lanes 0, 1
	FCVTL2(1, 3) // e, lanes 2, 3

	// Lanes 0, 1.
	DADD2(9, 2, 0)            // 1 + e
	DDIV2(0, 9, 0)            // s = 1/(1 + e)
	DSUB2(0, 9, 4)            // 1 − s
	DMUL2(0, 4, 4)            // s(1 − s)
	DMUL2(7, 4, 4)            // ·x
	DMUL2(10, 4, 4)           // ·2K
	DMUL2(7, 11, 5)           // 3A·x
	VORR  V9.B16, V9.B16, V1.B16
	VFMLA V5.D2, V7.D2, V1.D2 // fma(3A·x, x, 1)
	VFMLA V1.D2, V4.D2, V0.D2 // g = fma(·, ·, s)
	DCMGT2(12, 7, 4)          // x = +Inf: 1
	VBIT  V4.B16, V9.B16, V0.B16
	DCMGT2(7, 13, 4)          // x = −Inf: 0
	VBIC16(4, 0, 0)
	FCVTL(14, 1)              // dy
	DMUL2(0, 1, 0)
	FCVTN(0, 15)

	// Lanes 2, 3.
	DADD2(9, 3, 0)
	DDIV2(0, 9, 0)
	DSUB2(0, 9, 4)
	DMUL2(0, 4, 4)
	DMUL2(8, 4, 4)
	DMUL2(10, 4, 4)
	DMUL2(8, 11, 5)
	VORR  V9.B16, V9.B16, V1.B16
	VFMLA V5.D2, V8.D2, V1.D2
	VFMLA V1.D2, V4.D2, V0.D2
	DCMGT2(12, 8, 4)
	VBIT  V4.B16, V9.B16, V0.B16
	DCMGT2(8, 13, 4)
	VBIC16(4, 0, 0)
	FCVTL2(14, 1)
	DMUL2(0, 1, 0)
	FCVTN2(0, 15)

	VST1.P [V15.S4], 16(R2)
	SUBS   $1, R4, R4
	BNE    bwd
	RET
