//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// func ringSumsAVX(r *ringSums, x, xi *node, ring *int32, rest, ri, mean0 *mgl64.Vec3, n int)
//
// Y0, Y1, Y2: Σⱼ e[k]·(xⱼ, vⱼ[0]) for k = 0, 1, 2 (A's columns, a spare
// lane), e = restⱼ − rᵢ in every lane (Y10, Y11, Y12: rᵢ's components);
// Y3: Σⱼ ((xⱼ, vⱼ[0]) − (xᵢ, vᵢ[0])); Y4: Σⱼ (xⱼ[2], vⱼ). Each lane sums
// from 0 in ring order, a product then an add per entry, as ringSumsGo
// does; then Yk −= Y9·(mean0[k]·n) for the three columns. The stores in
// increasing offset put every spare lane where the next store or the
// ringSums padding takes it.
TEXT ·ringSumsAVX(SB), NOSPLIT, $0-64
	MOVQ         r+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         xi+16(FP), DX
	MOVQ         ring+24(FP), R8
	MOVQ         rest+32(FP), R9
	MOVQ         ri+40(FP), BX
	MOVQ         n+56(FP), CX
	VMOVUPD      (DX), Y9
	VBROADCASTSD (BX), Y10
	VBROADCASTSD 8(BX), Y11
	VBROADCASTSD 16(BX), Y12
	VXORPD  Y0, Y0, Y0
	VXORPD  Y1, Y1, Y1
	VXORPD  Y2, Y2, Y2
	VXORPD  Y3, Y3, Y3
	VXORPD  Y4, Y4, Y4

loop:
	MOVLQSX      (R8), AX
	LEAQ         (AX)(AX*2), AX  // 3j: rest's entry j at 8·3j
	LEAQ         (AX)(AX*1), R10 // 6j: node j at 8·6j
	VMOVUPD      (SI)(R10*8), Y5
	VMOVUPD      16(SI)(R10*8), Y6
	VBROADCASTSD (R9)(AX*8), Y7
	VSUBPD       Y10, Y7, Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y0, Y0
	VBROADCASTSD 8(R9)(AX*8), Y8
	VSUBPD       Y11, Y8, Y8
	VMULPD       Y5, Y8, Y8
	VADDPD       Y8, Y1, Y1
	VBROADCASTSD 16(R9)(AX*8), Y7
	VSUBPD       Y12, Y7, Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y2, Y2
	VSUBPD       Y9, Y5, Y5
	VADDPD       Y5, Y3, Y3
	VADDPD       Y6, Y4, Y4
	ADDQ         $4, R8
	DECQ         CX
	JNZ          loop

	// Y10: n in every lane; column k less xᵢ·(mean0[k]·n).
	MOVQ         mean0+48(FP), BX
	CVTSQ2SD     n+56(FP), X10
	VMOVDDUP     X10, X10
	VINSERTF128  $1, X10, Y10, Y10
	VBROADCASTSD (BX), Y7
	VMULPD       Y10, Y7, Y7
	VMULPD       Y7, Y9, Y7
	VSUBPD       Y7, Y0, Y0
	VBROADCASTSD 8(BX), Y7
	VMULPD       Y10, Y7, Y7
	VMULPD       Y7, Y9, Y7
	VSUBPD       Y7, Y1, Y1
	VBROADCASTSD 16(BX), Y7
	VMULPD       Y10, Y7, Y7
	VMULPD       Y7, Y9, Y7
	VSUBPD       Y7, Y2, Y2

	VMOVUPD Y0, ringSums_a(DI)
	VMOVUPD Y1, (ringSums_a+24)(DI)
	VMOVUPD Y2, (ringSums_a+48)(DI)
	VMOVUPD Y3, ringSums_dx(DI)
	VMOVUPD Y4, (ringSums_sv-8)(DI)
	VZEROUPPER
	RET
