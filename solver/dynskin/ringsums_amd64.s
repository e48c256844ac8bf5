//go:build !purego

#include "textflag.h"

// func ringSumsAVX(r *ringSums, x, xi *node, ring *int32, edge *mgl64.Vec3, n int)
//
// Y0, Y1, Y2: Σⱼ e[k]·(xⱼ, vⱼ[0]) for k = 0, 1, 2 (A's columns, a spare
// lane); Y3: Σⱼ ((xⱼ, vⱼ[0]) − (xᵢ, vᵢ[0])); Y4: Σⱼ (xⱼ[2], vⱼ). Each
// lane sums from 0 in ring order, a product then an add per entry, as
// ringSumsGo does. The stores in increasing offset put every spare lane
// where the next store or the ringSums padding takes it.
TEXT ·ringSumsAVX(SB), NOSPLIT, $0-48
	MOVQ    r+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    xi+16(FP), DX
	MOVQ    ring+24(FP), R8
	MOVQ    edge+32(FP), R9
	MOVQ    n+40(FP), CX
	VMOVUPD (DX), Y9
	VXORPD  Y0, Y0, Y0
	VXORPD  Y1, Y1, Y1
	VXORPD  Y2, Y2, Y2
	VXORPD  Y3, Y3, Y3
	VXORPD  Y4, Y4, Y4

loop:
	MOVLQSX      (R8), AX
	LEAQ         (AX)(AX*2), AX
	SHLQ         $4, AX
	VMOVUPD      (SI)(AX*1), Y5
	VMOVUPD      16(SI)(AX*1), Y6
	VBROADCASTSD (R9), Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y0, Y0
	VBROADCASTSD 8(R9), Y8
	VMULPD       Y5, Y8, Y8
	VADDPD       Y8, Y1, Y1
	VBROADCASTSD 16(R9), Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y2, Y2
	VSUBPD       Y9, Y5, Y5
	VADDPD       Y5, Y3, Y3
	VADDPD       Y6, Y4, Y4
	ADDQ         $4, R8
	ADDQ         $24, R9
	DECQ         CX
	JNZ          loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 24(DI)
	VMOVUPD Y2, 48(DI)
	VMOVUPD Y3, 72(DI)
	VMOVUPD Y4, 96(DI)
	VZEROUPPER
	RET
