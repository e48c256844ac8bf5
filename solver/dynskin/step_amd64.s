//go:build !purego

#include "textflag.h"
#include "go_asm.h"
#include "lanes_amd64.h"

// stepArgs' fields, at the offsets go_asm.h gives.
#define A_CUR stepArgs_cur
#define A_NXT stepArgs_nxt
#define A_G0 stepArgs_g0
#define A_G1 stepArgs_g1
#define A_R stepArgs_r
#define A_Q stepArgs_q
#define A_SP stepArgs_sp
#define A_MEAN0 stepArgs_mean0
#define A_INV stepArgs_inv
#define A_P stepArgs_p
#define A_U stepArgs_u
#define A_UN stepArgs_un
#define A_H stepArgs_h
#define A_FPS stepArgs_fps
#define A_IH stepArgs_ih
#define A_LIM2 stepArgs_lim2
#define A_HEXT stepArgs_hext

// The transposed fields in stepArgs.tmp, 32 bytes each: lane j of a field
// is slot j's value. Inputs: positions, velocities, the goal frames, the
// rings' Σ(xⱼ − xᵢ) and Σvⱼ, the rotations (w, u), the mean rest edges, the
// parameters α β γ λ κ; outputs: the new positions and velocities.
#define T_X0 (stepArgs_tmp+0)
#define T_X1 (stepArgs_tmp+32)
#define T_X2 (stepArgs_tmp+64)
#define T_V0 (stepArgs_tmp+96)
#define T_V1 (stepArgs_tmp+128)
#define T_V2 (stepArgs_tmp+160)
#define T_G00 (stepArgs_tmp+192)
#define T_G01 (stepArgs_tmp+224)
#define T_G02 (stepArgs_tmp+256)
#define T_G10 (stepArgs_tmp+288)
#define T_G11 (stepArgs_tmp+320)
#define T_G12 (stepArgs_tmp+352)
#define T_DX0 (stepArgs_tmp+384)
#define T_DX1 (stepArgs_tmp+416)
#define T_DX2 (stepArgs_tmp+448)
#define T_PAD (stepArgs_tmp+480)
#define T_SV0 (stepArgs_tmp+512)
#define T_SV1 (stepArgs_tmp+544)
#define T_SV2 (stepArgs_tmp+576)
#define T_W (stepArgs_tmp+608)
#define T_U0 (stepArgs_tmp+640)
#define T_U1 (stepArgs_tmp+672)
#define T_U2 (stepArgs_tmp+704)
#define T_E0 (stepArgs_tmp+736)
#define T_E1 (stepArgs_tmp+768)
#define T_E2 (stepArgs_tmp+800)
#define T_A (stepArgs_tmp+832)
#define T_B (stepArgs_tmp+864)
#define T_G (stepArgs_tmp+896)
#define T_L (stepArgs_tmp+928)
#define T_K (stepArgs_tmp+960)
#define T_XN0 (stepArgs_tmp+992)
#define T_XN1 (stepArgs_tmp+1024)
#define T_XN2 (stepArgs_tmp+1056)
#define T_VN0 (stepArgs_tmp+1088)
#define T_VN1 (stepArgs_tmp+1120)
#define T_VN2 (stepArgs_tmp+1152)

// COMPONENT does stepVertex's work for component k of the four lanes,
// given t = 2u × e in Y11-Y13 (tk its component k, ta and tb those of the
// components a = k+1 and b = k+2 mod 3), inv in Y14, the mask of the
// lanes with a ring in Y15 and dd so far in Y10:
//
//	c1 = (Σ(xⱼ−xᵢ)ₖ·inv − (((eₖ + w·tk) + u_a·tb) − u_b·ta)) where a ring
//	c3 = h·(Σvⱼₖ·inv − vₖ) where a ring
//	gd = g1ₖ − g0ₖ;  c0 = (g0ₖ + u·gd) − xₖ;  c4 = h·(gd·fps − vₖ)
//	dx = ((((α·c0 + β·c1) + γ·c2) + λ·c3) + κ·c4) + h²·extₖ
//	vn = vₖ + dx·ih;  xn = xₖ + h·vn;  dd += (xn − (g0ₖ + un·gd))²
//
// with c2 the spokes' column k (row SP of a.sp); Y0-Y9 are scratch.
#define COMPONENT(E, UA, TB, UB, TA, TK, DX, SV, V, G1, G0, X, SP, HEXT, VN, XN) \
	VMOVUPD      T_W(DI), Y0; \
	VMULPD       TK, Y0, Y0; \
	VADDPD       E(DI), Y0, Y0; \
	VMOVUPD      UA(DI), Y1; \
	VMULPD       TB, Y1, Y1; \
	VADDPD       Y1, Y0, Y0; \
	VMOVUPD      UB(DI), Y1; \
	VMULPD       TA, Y1, Y1; \
	VSUBPD       Y1, Y0, Y0; \
	VMOVUPD      DX(DI), Y2; \
	VMULPD       Y14, Y2, Y2; \
	VSUBPD       Y0, Y2, Y2; \
	VANDPD       Y15, Y2, Y2; \
	VMOVUPD      SV(DI), Y3; \
	VMULPD       Y14, Y3, Y3; \
	VSUBPD       V(DI), Y3, Y3; \
	VBROADCASTSD A_H(DI), Y9; \
	VMULPD       Y9, Y3, Y3; \
	VANDPD       Y15, Y3, Y3; \
	VMOVUPD      G1(DI), Y4; \
	VSUBPD       G0(DI), Y4, Y4; \
	VBROADCASTSD A_U(DI), Y5; \
	VMULPD       Y4, Y5, Y5; \
	VADDPD       G0(DI), Y5, Y5; \
	VSUBPD       X(DI), Y5, Y5; \
	VBROADCASTSD A_FPS(DI), Y6; \
	VMULPD       Y4, Y6, Y6; \
	VSUBPD       V(DI), Y6, Y6; \
	VMULPD       Y9, Y6, Y6; \
	MOVQ         A_SP(DI), AX; \
	VMULPD       T_A(DI), Y5, Y7; \
	VMULPD       T_B(DI), Y2, Y8; \
	VADDPD       Y8, Y7, Y7; \
	VMOVUPD      SP(AX), Y8; \
	VMULPD       T_G(DI), Y8, Y8; \
	VADDPD       Y8, Y7, Y7; \
	VMULPD       T_L(DI), Y3, Y8; \
	VADDPD       Y8, Y7, Y7; \
	VMULPD       T_K(DI), Y6, Y8; \
	VADDPD       Y8, Y7, Y7; \
	VBROADCASTSD HEXT(DI), Y8; \
	VADDPD       Y8, Y7, Y7; \
	VBROADCASTSD A_IH(DI), Y8; \
	VMULPD       Y8, Y7, Y7; \
	VADDPD       V(DI), Y7, Y7; \
	VMOVUPD      Y7, VN(DI); \
	VMULPD       Y9, Y7, Y7; \
	VADDPD       X(DI), Y7, Y7; \
	VMOVUPD      Y7, XN(DI); \
	VBROADCASTSD A_UN(DI), Y8; \
	VMULPD       Y4, Y8, Y8; \
	VADDPD       G0(DI), Y8, Y8; \
	VSUBPD       Y8, Y7, Y7; \
	VMULPD       Y7, Y7, Y7; \
	VADDPD       Y7, Y10, Y10

// CROSS sets T to 2·(UA·EB − UB·EA), as the sum of the difference with
// itself (2x exactly).
#define CROSS(UA, EB, UB, EA, T) \
	VMOVUPD UA(DI), Y0; \
	VMULPD  EB(DI), Y0, Y0; \
	VMOVUPD UB(DI), Y1; \
	VMULPD  EA(DI), Y1, Y1; \
	VSUBPD  Y1, Y0, Y0; \
	VADDPD  Y0, Y0, T

// LANES sets AX, BX, CX, DX to the four lanes' records of an array whose
// first record's address is at OFF(DI), STRIDE bytes apart.
#define LANES(OFF, STRIDE) \
	MOVQ OFF(DI), AX; \
	LEAQ STRIDE(AX), BX; \
	LEAQ (2*STRIDE)(AX), CX; \
	LEAQ (3*STRIDE)(AX), DX

// FIELDS stores the transposed pair of float64 at OFF of the lanes'
// records (LANES) as the fields LO and HI.
#define FIELDS(OFF, LO, HI) \
	PAIR(AX, BX, CX, DX, OFF, Y0, Y1, X0, Y0, X2, Y2); \
	VMOVUPD Y0, LO(DI); \
	VMOVUPD Y1, HI(DI)

// NEWNODES stores the fields LO and HI as the pair of float64 at OFF of
// the lanes' records (LANES).
#define NEWNODES(OFF, LO, HI) \
	VMOVUPD LO(DI), Y0; \
	VMOVUPD HI(DI), Y1; \
	UNPAIR(AX, BX, CX, DX, OFF, Y0, Y1, Y2, Y3, X2, X3)

// func stepGroupAVX(a *stepArgs) int
//
// stepVertex for the four slots of a group (without the fit's columns
// and without a poke), slot j in lane j of 4-wide vectors: the inputs
// are transposed into a.tmp, field by field, then every lane does
// stepVertex's operations in its order (COMPONENT), without fused
// multiply-adds (products and sums commute exactly, so an operand's side
// does not matter; differences keep theirs), the surface and damping
// columns masked to +0 where the slot has no ring (inv = 0), as
// stepVertex leaves them 0; the new positions and velocities are
// transposed into the nodes of a.nxt. It returns the lanes (bit j for
// lane j) whose squared distance from the goal is at most a.lim2, false
// for NaN. A field read at an odd offset (FIELDS(8, ...)) takes its
// record's last two float64; one it does not need goes to T_PAD or is
// overwritten by the next.
TEXT ·stepGroupAVX(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), DI

	// Nodes (48 bytes: x, v).
	LANES(A_CUR, node__size)
	FIELDS(node_x, T_X0, T_X1)
	FIELDS((node_x+16), T_X2, T_V0)
	FIELDS((node_v+8), T_V1, T_V2)

	// The goal frames (24 bytes).
	LANES(A_G0, 24)
	FIELDS(0, T_G00, T_G01)
	FIELDS(8, T_G01, T_G02)
	LANES(A_G1, 24)
	FIELDS(0, T_G10, T_G11)
	FIELDS(8, T_G11, T_G12)

	// The rings' sums (A, Σ(xⱼ − xᵢ), a spare, Σvⱼ).
	LANES(A_R, ringSums__size)
	FIELDS(ringSums_dx, T_DX0, T_DX1)
	FIELDS((ringSums_dx+16), T_DX2, T_PAD)
	FIELDS(ringSums_sv, T_SV0, T_SV1)
	FIELDS((ringSums_sv+8), T_SV1, T_SV2)

	// The rotations (32 bytes: w, u).
	LANES(A_Q, 32)
	FIELDS(0, T_W, T_U0)
	FIELDS(16, T_U1, T_U2)

	// The mean rest edges (24 bytes).
	LANES(A_MEAN0, 24)
	FIELDS(0, T_E0, T_E1)
	FIELDS(8, T_E1, T_E2)

	// The parameters (40 bytes: α, β, γ, λ, κ).
	LANES(A_P, Material__size)
	FIELDS(Material_Alpha, T_A, T_B)
	FIELDS(Material_Gamma, T_G, T_L)
	FIELDS(Material_Lambda, T_L, T_K)

	// Y14: inv; Y15: the lanes with a ring (inv > 0).
	MOVQ    A_INV(DI), AX
	VMOVUPD (AX), Y14
	VXORPD  Y15, Y15, Y15
	VCMPPD  $0x1e, Y15, Y14, Y15

	// t = 2u × e in Y11, Y12, Y13; dd = 0 in Y10.
	CROSS(T_U1, T_E2, T_U2, T_E1, Y11)
	CROSS(T_U2, T_E0, T_U0, T_E2, Y12)
	CROSS(T_U0, T_E1, T_U1, T_E0, Y13)
	VXORPD Y10, Y10, Y10

	COMPONENT(T_E0, T_U1, Y13, T_U2, Y12, Y11, T_DX0, T_SV0, T_V0, T_G10, T_G00, T_X0, 0, A_HEXT, T_VN0, T_XN0)
	COMPONENT(T_E1, T_U2, Y11, T_U0, Y13, Y12, T_DX1, T_SV1, T_V1, T_G11, T_G01, T_X1, 32, (A_HEXT+8), T_VN1, T_XN1)
	COMPONENT(T_E2, T_U0, Y12, T_U1, Y11, Y13, T_DX2, T_SV2, T_V2, T_G12, T_G02, T_X2, 64, (A_HEXT+16), T_VN2, T_XN2)

	// The new nodes.
	LANES(A_NXT, node__size)
	NEWNODES(node_x, T_XN0, T_XN1)
	NEWNODES((node_x+16), T_XN2, T_VN0)
	NEWNODES((node_v+8), T_VN1, T_VN2)

	// The lanes in range: dd ≤ lim², false for NaN.
	VBROADCASTSD A_LIM2(DI), Y8
	VCMPPD       $0x12, Y8, Y10, Y10
	VMOVMSKPD    Y10, AX
	MOVQ         AX, ret+8(FP)
	VZEROUPPER
	RET
