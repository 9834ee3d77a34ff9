// The float32 exponential of exp.go in NEON, four lanes at a time: the
// same steps as exp32, with the fused multiply-adds where the Go compiler
// fuses exp32's on arm64 (t, r and the Horner steps), so each lane is
// bitwise exp32's result.

// EXPCONSTS loads the constants EXP4 reads into V16–V28, through the
// general register r.
#define EXPCONSTS(r) \
	MOVW $0x3fb8aa3b, r; VDUP r, V16.S4; \
	MOVW $0x4b40007f, r; VDUP r, V17.S4; \
	MOVW $0x3f317200, r; VDUP r, V18.S4; \
	MOVW $0x35bfbe8e, r; VDUP r, V19.S4; \
	MOVW $0x3ab57398, r; VDUP r, V20.S4; \
	MOVW $0x3c0933c1, r; VDUP r, V21.S4; \
	MOVW $0x3d2aac11, r; VDUP r, V22.S4; \
	MOVW $0x3e2aaa0d, r; VDUP r, V23.S4; \
	MOVW $0x3efffffe, r; VDUP r, V24.S4; \
	MOVW $0x3f800000, r; VDUP r, V25.S4; \
	MOVW $0xc2b00000, r; VDUP r, V26.S4; \
	MOVW $0x42b0c0a5, r; VDUP r, V27.S4; \
	MOVW $0x7f800000, r; VDUP r, V28.S4

// Constants: V16 log2 e, V17 1.5·2²³ + 127, V18 ln2_hi, V19 ln2_lo,
// V20–V24 c6..c2, V25 1 (c1 and the last term), V26 expLo (−88),
// V27 expHi, V28 +Inf.
//
// EXP4 sets V1 = e^V0 lane by lane; V2–V5 are clobbered, V0 is kept.
//
//	V2 = max(x, −88)                 (NaN stays NaN)
//	V5 = x > expHi                   (those lanes become +Inf at the end)
//	V1 = t = fma(x, log2 e, magic)
//	V3 = n = t − magic
//	V2 = r = fma(−n, ln2_lo, fma(−n, ln2_hi, x))
//	V3/V4: p = fma(p, r, c) from c6 down to the last 1
//	V1 = (t << 23) · p
#define EXP4 \
	FMAX4(26, 0, 2); \
	FCMGT4(27, 0, 5); \
	VORR  V17.B16, V17.B16, V1.B16; \
	VFMLA V16.S4, V2.S4, V1.S4; \
	FSUB4(17, 1, 3); \
	VFMLS V18.S4, V3.S4, V2.S4; \
	VFMLS V19.S4, V3.S4, V2.S4; \
	VORR  V21.B16, V21.B16, V3.B16; \
	VFMLA V20.S4, V2.S4, V3.S4; \
	VORR  V22.B16, V22.B16, V4.B16; \
	VFMLA V3.S4, V2.S4, V4.S4; \
	VORR  V23.B16, V23.B16, V3.B16; \
	VFMLA V4.S4, V2.S4, V3.S4; \
	VORR  V24.B16, V24.B16, V4.B16; \
	VFMLA V3.S4, V2.S4, V4.S4; \
	VORR  V25.B16, V25.B16, V3.B16; \
	VFMLA V4.S4, V2.S4, V3.S4; \
	VORR  V25.B16, V25.B16, V4.B16; \
	VFMLA V3.S4, V2.S4, V4.S4; \
	VSHL  $23, V1.S4, V1.S4; \
	FMUL4(4, 1, 1); \
	VBIT  V5.B16, V28.B16, V1.B16
