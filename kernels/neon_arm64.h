// NEON floating-point vector instructions that Go's arm64 assembler does
// not have, as WORDs. Each macro takes register numbers in Go's operand
// order, sources first: OP(m, n, d) is the ARM "OP Vd, Vn, Vm", so
// FSUB4(m, n, d) is Vd = Vn − Vm and FCMGT4(m, n, d) is Vd = (Vn > Vm).
// The encodings were checked against GNU as (aarch64-linux-gnu-as).

// Four float32 lanes (.4S).
#define FADD4(m, n, d) WORD $(0x4E20D400 | (m)<<16 | (n)<<5 | (d))   // FADD   Vd.4S, Vn.4S, Vm.4S
#define FSUB4(m, n, d) WORD $(0x4EA0D400 | (m)<<16 | (n)<<5 | (d))   // FSUB   Vd.4S, Vn.4S, Vm.4S
#define FMUL4(m, n, d) WORD $(0x6E20DC00 | (m)<<16 | (n)<<5 | (d))   // FMUL   Vd.4S, Vn.4S, Vm.4S
#define FDIV4(m, n, d) WORD $(0x6E20FC00 | (m)<<16 | (n)<<5 | (d))   // FDIV   Vd.4S, Vn.4S, Vm.4S
#define FMAX4(m, n, d) WORD $(0x4E20F400 | (m)<<16 | (n)<<5 | (d))   // FMAX   Vd.4S, Vn.4S, Vm.4S
#define FMAXNM4(m, n, d) WORD $(0x4E20C400 | (m)<<16 | (n)<<5 | (d)) // FMAXNM Vd.4S, Vn.4S, Vm.4S
#define FCMGT4(m, n, d) WORD $(0x6EA0E400 | (m)<<16 | (n)<<5 | (d))  // FCMGT  Vd.4S, Vn.4S, Vm.4S
#define FMAXNMV4(n, d) WORD $(0x6E30C800 | (n)<<5 | (d))             // FMAXNMV Sd, Vn.4S

// Two float64 lanes (.2D).
#define DADD2(m, n, d) WORD $(0x4E60D400 | (m)<<16 | (n)<<5 | (d))  // FADD  Vd.2D, Vn.2D, Vm.2D
#define DSUB2(m, n, d) WORD $(0x4EE0D400 | (m)<<16 | (n)<<5 | (d))  // FSUB  Vd.2D, Vn.2D, Vm.2D
#define DMUL2(m, n, d) WORD $(0x6E60DC00 | (m)<<16 | (n)<<5 | (d))  // FMUL  Vd.2D, Vn.2D, Vm.2D
#define DDIV2(m, n, d) WORD $(0x6E60FC00 | (m)<<16 | (n)<<5 | (d))  // FDIV  Vd.2D, Vn.2D, Vm.2D
#define DCMGT2(m, n, d) WORD $(0x6EE0E400 | (m)<<16 | (n)<<5 | (d)) // FCMGT Vd.2D, Vn.2D, Vm.2D

// Conversions between the float32 and float64 lanes.
#define FCVTL(n, d) WORD $(0x0E617800 | (n)<<5 | (d))  // FCVTL  Vd.2D, Vn.2S   (lanes 0, 1 widened)
#define FCVTL2(n, d) WORD $(0x4E617800 | (n)<<5 | (d)) // FCVTL2 Vd.2D, Vn.4S   (lanes 2, 3 widened)
#define FCVTN(n, d) WORD $(0x0E616800 | (n)<<5 | (d))  // FCVTN  Vd.2S, Vn.2D   (into lanes 0, 1; 2, 3 cleared)
#define FCVTN2(n, d) WORD $(0x4E616800 | (n)<<5 | (d)) // FCVTN2 Vd.4S, Vn.2D   (into lanes 2, 3)

// Bitwise.
#define VBIC16(m, n, d) WORD $(0x4E601C00 | (m)<<16 | (n)<<5 | (d)) // BIC Vd.16B, Vn.16B, Vm.16B: Vn AND NOT Vm
