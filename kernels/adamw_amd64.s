//go:build !noasm

#include "textflag.h"

// func adamWAVX512(k *adamWConsts, data, grad, m, v *float32, n int)
//
// adamWUpdateGo (adamw.go) on 8 elements at a time in float64, n a
// multiple of 8: the same operations in the same order, none fused.
TEXT ·adamWAVX512(SB), NOSPLIT, $0-48
	MOVQ         k+0(FP), AX
	MOVQ         data+8(FP), DI
	MOVQ         grad+16(FP), SI
	MOVQ         m+24(FP), BX
	MOVQ         v+32(FP), DX
	MOVQ         n+40(FP), CX
	VBROADCASTSD 0(AX), Z16  // β1
	VBROADCASTSD 8(AX), Z17  // β2
	VBROADCASTSD 16(AX), Z18 // 1−β1
	VBROADCASTSD 24(AX), Z19 // 1−β2
	VBROADCASTSD 32(AX), Z20 // bc1
	VBROADCASTSD 40(AX), Z21 // bc2
	VBROADCASTSD 48(AX), Z22 // lr
	VBROADCASTSD 56(AX), Z23 // ε
	VBROADCASTSD 64(AX), Z24 // shrink
	SHRQ         $3, CX
	JZ           done

loop:
	VCVTPS2PD (SI), Z0     // g
	VCVTPS2PD (BX), Z1
	VMULPD    Z16, Z1, Z1  // β1·m
	VMULPD    Z18, Z0, Z2  // (1−β1)·g
	VADDPD    Z2, Z1, Z1   // m'
	VCVTPS2PD (DX), Z3
	VMULPD    Z17, Z3, Z3  // β2·v
	VMULPD    Z19, Z0, Z4  // (1−β2)·g
	VMULPD    Z0, Z4, Z4   // ·g
	VADDPD    Z4, Z3, Z3   // v'
	VCVTPD2PS Z1, Y5
	VMOVUPS   Y5, (BX)
	VCVTPD2PS Z3, Y5
	VMOVUPS   Y5, (DX)
	VCVTPS2PD (DI), Z5
	VMULPD    Z24, Z5, Z5  // p·shrink
	VDIVPD    Z20, Z1, Z6  // m'/bc1
	VMULPD    Z6, Z22, Z6  // lr·(m'/bc1)
	VDIVPD    Z21, Z3, Z7  // v'/bc2
	VSQRTPD   Z7, Z7
	VADDPD    Z23, Z7, Z7  // √ + ε
	VDIVPD    Z7, Z6, Z6
	VSUBPD    Z6, Z5, Z5
	VCVTPD2PS Z5, Y5
	VMOVUPS   Y5, (DI)
	ADDQ      $32, SI
	ADDQ      $32, BX
	ADDQ      $32, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop

done:
	VZEROUPPER
	RET

// func adamWAVX2(k *adamWConsts, data, grad, m, v *float32, n int)
//
// adamWAVX512 with 4 lanes: adamWUpdateGo on 4 elements at a time in
// float64, n a multiple of 4, the same operations in the same order, none
// fused.
TEXT ·adamWAVX2(SB), NOSPLIT, $0-48
	MOVQ         k+0(FP), AX
	MOVQ         data+8(FP), DI
	MOVQ         grad+16(FP), SI
	MOVQ         m+24(FP), BX
	MOVQ         v+32(FP), DX
	MOVQ         n+40(FP), CX
	VBROADCASTSD 0(AX), Y7   // β1
	VBROADCASTSD 8(AX), Y8   // β2
	VBROADCASTSD 16(AX), Y9  // 1−β1
	VBROADCASTSD 24(AX), Y10 // 1−β2
	VBROADCASTSD 32(AX), Y11 // bc1
	VBROADCASTSD 40(AX), Y12 // bc2
	VBROADCASTSD 48(AX), Y13 // lr
	VBROADCASTSD 56(AX), Y14 // ε
	VBROADCASTSD 64(AX), Y15 // shrink
	SHRQ         $2, CX
	JZ           done2

loop2:
	VCVTPS2PD  (SI), Y0     // g
	VCVTPS2PD  (BX), Y1
	VMULPD     Y7, Y1, Y1   // β1·m
	VMULPD     Y9, Y0, Y2   // (1−β1)·g
	VADDPD     Y2, Y1, Y1   // m'
	VCVTPS2PD  (DX), Y3
	VMULPD     Y8, Y3, Y3   // β2·v
	VMULPD     Y10, Y0, Y4  // (1−β2)·g
	VMULPD     Y0, Y4, Y4   // ·g
	VADDPD     Y4, Y3, Y3   // v'
	VCVTPD2PSY Y1, X5
	VMOVUPS    X5, (BX)
	VCVTPD2PSY Y3, X5
	VMOVUPS    X5, (DX)
	VCVTPS2PD  (DI), Y5
	VMULPD     Y15, Y5, Y5  // p·shrink
	VDIVPD     Y11, Y1, Y6  // m'/bc1
	VMULPD     Y6, Y13, Y6  // lr·(m'/bc1)
	VDIVPD     Y12, Y3, Y2  // v'/bc2
	VSQRTPD    Y2, Y2
	VADDPD     Y14, Y2, Y2  // √ + ε
	VDIVPD     Y2, Y6, Y6
	VSUBPD     Y6, Y5, Y5
	VCVTPD2PSY Y5, X5
	VMOVUPS    X5, (DI)
	ADDQ       $16, SI
	ADDQ       $16, BX
	ADDQ       $16, DX
	ADDQ       $16, DI
	DECQ       CX
	JNZ        loop2

done2:
	VZEROUPPER
	RET
