//go:build !purego

#include "textflag.h"
#include "go_asm.h"

DATA one<>+0(SB)/8, $1.0
GLOBL one<>(SB), RODATA|NOPTR, $8
DATA minushalf<>+0(SB)/8, $-0.5
GLOBL minushalf<>(SB), RODATA|NOPTR, $8
DATA four<>+0(SB)/8, $4.0
GLOBL four<>(SB), RODATA|NOPTR, $8
DATA two<>+0(SB)/8, $2.0
GLOBL two<>(SB), RODATA|NOPTR, $8
DATA eight<>+0(SB)/8, $8.0
GLOBL eight<>(SB), RODATA|NOPTR, $8
DATA sixteen<>+0(SB)/8, $16.0
GLOBL sixteen<>(SB), RODATA|NOPTR, $8
DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8
DATA signbit<>+0(SB)/8, $0x8000000000000000
GLOBL signbit<>(SB), RODATA|NOPTR, $8
DATA inf<>+0(SB)/8, $0x7ff0000000000000
GLOBL inf<>(SB), RODATA|NOPTR, $8

// GT is VCMPPD's predicate "greater than, ordered, quiet": false for NaN,
// as Go's >.
#define GT $0x1e

// LANES loads the float64 at o0(R), o1(R), o2(R), o3(R) into lanes 0-3
// of dst by 8-byte loads, which the stores of ringSums's corrections
// forward to (a 32-byte load of four 8-byte stores would wait for them).
#define LANES(R, o0, o1, o2, o3, dst) \
	VMOVSD       o0(R), X14; \
	VMOVHPD      o1(R), X14, X14; \
	VMOVSD       o2(R), X15; \
	VMOVHPD      o3(R), X15, X15; \
	VINSERTF128  $1, X15, Y14, dst

// Frame, four lanes a slot: a[i] at 32i, then M's m(i, j) at 32(3i + j);
// q's w, x, y, z at 288, 320, 352, 384; TR, S, MUOK, NEWTON, DETS, and
// the line search's turn DWS, DXS, DYS, DZS; CAP, FOURD2.
#define TR 416
#define S 448
#define MUOK 480
#define NEWTON 512
#define DETS 544
#define DWS 576
#define DXS 608
#define DYS 640
#define DZS 672
#define CAP 704
#define FOURD2 736

// func refineStep4(q *[4]mgl64.Quat, r *[4]ringSums, out *[4]mgl64.Quat) int
//
// Refine's step (rotation.Refine with tol 0, one step) on lane k = q[k],
// r[k].a of each register (ringSums' layout from go_asm.h), operation for operation in Refine's order: both
// the Newton step and the line search along (H + μI)⁻¹m, each lane taking
// the one Refine takes. The comments name Refine's variables.
TEXT ·refineStep4(SB), $768-32
	MOVQ q+0(FP), SI
	MOVQ r+8(FP), R8
	MOVQ out+16(FP), R10

	LANES(R8, (ringSums_a+0), (ringSums__size+ringSums_a+0), (2*ringSums__size+ringSums_a+0), (3*ringSums__size+ringSums_a+0), Y0)
	VMOVUPD Y0, 0(SP)
	LANES(R8, (ringSums_a+8), (ringSums__size+ringSums_a+8), (2*ringSums__size+ringSums_a+8), (3*ringSums__size+ringSums_a+8), Y0)
	VMOVUPD Y0, 32(SP)
	LANES(R8, (ringSums_a+16), (ringSums__size+ringSums_a+16), (2*ringSums__size+ringSums_a+16), (3*ringSums__size+ringSums_a+16), Y0)
	VMOVUPD Y0, 64(SP)
	LANES(R8, (ringSums_a+24), (ringSums__size+ringSums_a+24), (2*ringSums__size+ringSums_a+24), (3*ringSums__size+ringSums_a+24), Y0)
	VMOVUPD Y0, 96(SP)
	LANES(R8, (ringSums_a+32), (ringSums__size+ringSums_a+32), (2*ringSums__size+ringSums_a+32), (3*ringSums__size+ringSums_a+32), Y0)
	VMOVUPD Y0, 128(SP)
	LANES(R8, (ringSums_a+40), (ringSums__size+ringSums_a+40), (2*ringSums__size+ringSums_a+40), (3*ringSums__size+ringSums_a+40), Y0)
	VMOVUPD Y0, 160(SP)
	LANES(R8, (ringSums_a+48), (ringSums__size+ringSums_a+48), (2*ringSums__size+ringSums_a+48), (3*ringSums__size+ringSums_a+48), Y0)
	VMOVUPD Y0, 192(SP)
	LANES(R8, (ringSums_a+56), (ringSums__size+ringSums_a+56), (2*ringSums__size+ringSums_a+56), (3*ringSums__size+ringSums_a+56), Y0)
	VMOVUPD Y0, 224(SP)
	LANES(R8, (ringSums_a+64), (ringSums__size+ringSums_a+64), (2*ringSums__size+ringSums_a+64), (3*ringSums__size+ringSums_a+64), Y0)
	VMOVUPD Y0, 256(SP)
	LANES(SI, 0, 32, 64, 96, Y0)   // w
	LANES(SI, 8, 40, 72, 104, Y1)  // x
	LANES(SI, 16, 48, 80, 112, Y2) // y
	LANES(SI, 24, 56, 88, 120, Y3) // z
	VMOVUPD Y0, 288(SP)
	VMOVUPD Y1, 320(SP)
	VMOVUPD Y2, 352(SP)
	VMOVUPD Y3, 384(SP)

	// R(q).
	VADDPD  Y1, Y1, Y4  // x2
	VADDPD  Y2, Y2, Y5  // y2
	VADDPD  Y3, Y3, Y6  // z2
	VMULPD  Y4, Y1, Y7  // xx
	VMULPD  Y5, Y2, Y8  // yy
	VMULPD  Y6, Y3, Y9  // zz
	VMULPD  Y5, Y1, Y10 // xy
	VMULPD  Y6, Y1, Y11 // xz
	VMULPD  Y6, Y2, Y12 // yz
	VMULPD  Y4, Y0, Y13 // wx
	VMULPD  Y5, Y0, Y14 // wy
	VMULPD  Y6, Y0, Y15 // wz

	VBROADCASTSD one<>(SB), Y6
	VADDPD       Y9, Y8, Y0
	VSUBPD       Y0, Y6, Y0   // r0 = 1 − (yy + zz)
	VADDPD       Y9, Y7, Y4
	VSUBPD       Y4, Y6, Y4   // r4 = 1 − (xx + zz)
	VADDPD       Y8, Y7, Y8
	VSUBPD       Y8, Y6, Y8   // r8 = 1 − (xx + yy)
	VADDPD       Y15, Y10, Y1 // r1 = xy + wz
	VSUBPD       Y15, Y10, Y3 // r3 = xy − wz
	VSUBPD       Y14, Y11, Y2 // r2 = xz − wy
	VADDPD       Y14, Y11, Y6 // r6 = xz + wy
	VADDPD       Y13, Y12, Y5 // r5 = yz + wx
	VSUBPD       Y13, Y12, Y7 // r7 = yz − wx

	// M = a·Rᵀ, column by column: m(i, j) = (a[i]·r[j] + a[i+3]·r[j+3])
	// + a[i+6]·r[j+6], a[i] at 32i(SP).
#define MIJ(ai, ai3, ai6, rj, rj3, rj6, dst) \
	VMULPD ai(SP), rj, Y9; \
	VMULPD ai3(SP), rj3, Y10; \
	VADDPD Y10, Y9, Y9; \
	VMULPD ai6(SP), rj6, Y10; \
	VADDPD Y10, Y9, dst

	MIJ(0, 96, 192, Y0, Y3, Y6, Y11)   // m00
	MIJ(32, 128, 224, Y0, Y3, Y6, Y12) // m10
	MIJ(64, 160, 256, Y0, Y3, Y6, Y13) // m20
	MIJ(0, 96, 192, Y1, Y4, Y7, Y0)    // m01
	MIJ(32, 128, 224, Y1, Y4, Y7, Y3)  // m11
	MIJ(64, 160, 256, Y1, Y4, Y7, Y6)  // m21
	MIJ(0, 96, 192, Y2, Y5, Y8, Y1)    // m02
	MIJ(32, 128, 224, Y2, Y5, Y8, Y4)  // m12
	MIJ(64, 160, 256, Y2, Y5, Y8, Y7)  // m22
#undef MIJ
	VMOVUPD Y11, 0(SP)
	VMOVUPD Y0, 32(SP)
	VMOVUPD Y1, 64(SP)
	VMOVUPD Y12, 96(SP)
	VMOVUPD Y3, 128(SP)
	VMOVUPD Y4, 160(SP)
	VMOVUPD Y13, 192(SP)
	VMOVUPD Y6, 224(SP)
	VMOVUPD Y7, 256(SP)

	// m = (gx, gy, gz), tr, H.
	VSUBPD       Y4, Y6, Y2   // gx = m21 − m12
	VSUBPD       Y13, Y1, Y5  // gy = m02 − m20
	VSUBPD       Y0, Y12, Y8  // gz = m10 − m01
	VADDPD       Y3, Y11, Y9
	VADDPD       Y7, Y9, Y9   // tr = (m00 + m11) + m22
	VMOVUPD      Y9, TR(SP)
	VSUBPD       Y11, Y9, Y11 // h00 = tr − m00
	VSUBPD       Y3, Y9, Y3   // h11 = tr − m11
	VSUBPD       Y7, Y9, Y7   // h22 = tr − m22
	VBROADCASTSD minushalf<>(SB), Y10
	VADDPD       Y12, Y0, Y0
	VMULPD       Y10, Y0, Y0  // h01 = −0.5·(m01 + m10)
	VADDPD       Y13, Y1, Y1
	VMULPD       Y10, Y1, Y1  // h02 = −0.5·(m02 + m20)
	VADDPD       Y6, Y4, Y4
	VMULPD       Y10, Y4, Y4  // h12 = −0.5·(m12 + m21)

#define H00 Y11
#define H01 Y0
#define H02 Y1
#define H11 Y3
#define H12 Y4
#define H22 Y7
#define GX Y2
#define GY Y5
#define GZ Y8
#define C00 Y6
#define C01 Y10
#define C02 Y12
#define DET Y13
#define C11 Y14
#define C12 Y15
#define C22 Y7

	// newton = h00 > 0 && h00·h11 − h01·h01 > 0 && det > 0, with det =
	// (h00·c00 + h01·c01) + h02·c02; Y9 is the scratch register.
	VMULPD  H22, H11, C00
	VMULPD  H12, H12, Y9
	VSUBPD  Y9, C00, C00  // c00 = h11·h22 − h12·h12
	VMULPD  H12, H02, C01
	VMULPD  H22, H01, Y9
	VSUBPD  Y9, C01, C01  // c01 = h02·h12 − h01·h22
	VMULPD  H12, H01, C02
	VMULPD  H11, H02, Y9
	VSUBPD  Y9, C02, C02  // c02 = h01·h12 − h02·h11
	VMULPD  C00, H00, DET
	VMULPD  C01, H01, Y9
	VADDPD  Y9, DET, DET
	VMULPD  C02, H02, Y9
	VADDPD  Y9, DET, DET  // det
	VMOVUPD DET, DETS(SP)
	VMULPD  H11, H00, Y14
	VMULPD  H01, H01, Y9
	VSUBPD  Y9, Y14, Y14  // h00·h11 − h01·h01
	VXORPD  Y15, Y15, Y15
	VCMPPD  GT, Y15, H00, Y6
	VCMPPD  GT, Y15, Y14, Y10
	VANDPD  Y10, Y6, Y6
	VCMPPD  GT, Y15, DET, Y10
	VANDPD  Y10, Y6, Y6   // newton
	VMOVUPD Y6, NEWTON(SP)

	// μ = −min((h00 − |h01|) − |h02|, (h11 − |h01|) − |h12|, (h22 − |h02|)
	// − |h12|), each min of two as Go's (−0 below +0) by or-ing both
	// operand orders of VMINPD; MUOK: μ finite.
	VBROADCASTSD absmask<>(SB), Y15
	VANDPD       Y15, H01, Y10     // |h01|
	VANDPD       Y15, H02, Y12     // |h02|
	VANDPD       Y15, H12, Y13     // |h12|
	VSUBPD       Y10, H00, Y14
	VSUBPD       Y12, Y14, Y14
	VSUBPD       Y10, H11, Y10
	VSUBPD       Y13, Y10, Y10
	VSUBPD       Y12, H22, Y12
	VSUBPD       Y13, Y12, Y12
	VMINPD       Y10, Y14, Y13
	VMINPD       Y14, Y10, Y14
	VORPD        Y13, Y14, Y14
	VMINPD       Y12, Y14, Y13
	VMINPD       Y14, Y12, Y12
	VORPD        Y13, Y12, Y12
	VBROADCASTSD signbit<>(SB), Y13
	VXORPD       Y13, Y12, Y12     // μ
	VANDPD       Y15, Y12, Y13
	VBROADCASTSD inf<>(SB), Y14
	VCMPPD       $0x11, Y14, Y13, Y13 // |μ| < ∞
	VMOVUPD      Y13, MUOK(SP)

	// Off the Newton region the diagonal is H + μI's from here on.
	VADDPD    Y12, H00, Y13
	VBLENDVPD Y6, H00, Y13, H00
	VADDPD    Y12, H11, Y13
	VBLENDVPD Y6, H11, Y13, H11
	VADDPD    Y12, H22, Y13
	VBLENDVPD Y6, H22, Y13, H22

	// The cofactors of H (+ μI).
	VMULPD  H22, H11, C00
	VMULPD  H12, H12, Y9
	VSUBPD  Y9, C00, C00  // c00 = h11·h22 − h12·h12
	VMULPD  H12, H02, C01
	VMULPD  H22, H01, Y9
	VSUBPD  Y9, C01, C01  // c01 = h02·h12 − h01·h22
	VMULPD  H12, H01, C02
	VMULPD  H11, H02, Y9
	VSUBPD  Y9, C02, C02  // c02 = h01·h12 − h02·h11
	VMOVUPD DETS(SP), DET
	VMULPD  H22, H00, C11
	VMULPD  H02, H02, Y9
	VSUBPD  Y9, C11, C11  // c11 = h00·h22 − h02·h02
	VMULPD  H02, H01, C12
	VMULPD  H12, H00, Y9
	VSUBPD  Y9, C12, C12  // c12 = h01·h02 − h00·h12
	VMULPD  H11, H00, C22 // (h22 is dead)
	VMULPD  H01, H01, Y9
	VSUBPD  Y9, C22, C22  // c22 = h00·h11 − h01·h01

#define ZERO Y0
#define OK Y1
#define UX Y3
#define UY Y4
#define UZ Y11

	VXORPD  ZERO, ZERO, ZERO
	VMOVUPD NEWTON(SP), OK

	// u = adj(H)·m.
	VMULPD GX, C00, UX
	VMULPD GY, C01, Y9
	VADDPD Y9, UX, UX
	VMULPD GZ, C02, Y9
	VADDPD Y9, UX, UX // ux = (c00·gx + c01·gy) + c02·gz
	VMULPD GX, C01, UY
	VMULPD GY, C11, Y9
	VADDPD Y9, UY, UY
	VMULPD GZ, C12, Y9
	VADDPD Y9, UY, UY // uy = (c01·gx + c11·gy) + c12·gz
	VMULPD GX, C02, UZ
	VMULPD GY, C12, Y9
	VADDPD Y9, UZ, UZ
	VMULPD GZ, C22, Y9
	VADDPD Y9, UZ, UZ // uz = (c02·gx + c12·gy) + c22·gz
	VMULPD  GX, UX, Y6
	VMULPD  GY, UY, Y9
	VADDPD  Y9, Y6, Y6
	VMULPD  GZ, UZ, Y9
	VADDPD  Y9, Y6, Y6 // s = (ux·gx + uy·gy) + uz·gz
	VMOVUPD Y6, S(SP)

#define UU Y2
#define D2 Y5
#define E Y6
#define K Y7

	VMULPD UX, UX, UU
	VMULPD UY, UY, Y9
	VADDPD Y9, UU, UU
	VMULPD UZ, UZ, Y9
	VADDPD Y9, UU, UU // uu = (ux·ux + uy·uy) + uz·uz
	VMULPD DET, DET, D2

	// ok = newton && uu > 0·d2 (Refine with tol 0 takes the Newton step
	// below, not returning q) or !newton && μ finite (so is tr) && s > 0
	// (the line search below, not Polar); CAP: uu > 4·d2.
	VMULPD       ZERO, D2, Y9
	VCMPPD       GT, Y9, UU, Y9
	VANDPD       Y9, OK, OK
	VBROADCASTSD four<>(SB), Y9
	VMULPD       D2, Y9, Y9
	VMOVUPD      Y9, FOURD2(SP)
	VCMPPD       GT, Y9, UU, Y9
	VMOVUPD      Y9, CAP(SP)
	VMOVUPD      S(SP), Y9
	VCMPPD       GT, ZERO, Y9, Y9
	VANDPD       MUOK(SP), Y9, Y9
	VMOVUPD      NEWTON(SP), Y10
	VANDNPD      Y9, Y10, Y9
	VORPD        Y9, OK, OK

	// The line search's turn: with c = tr·uu − ((ux·((m00·ux + m01·uy) +
	// m02·uz) + uy·(…)) + uz·(…)), dw = √(c·c + (s·s)·uu) + c and k =
	// 1/√(dw·dw + (s·s)·uu), (dw·k, ux·k·s, uy·k·s, uz·k·s).
#define ROW(o0, o1, o2, ui, dst) \
	VMULPD o0(SP), UX, Y9; \
	VMULPD o1(SP), UY, Y10; \
	VADDPD Y10, Y9, Y9; \
	VMULPD o2(SP), UZ, Y10; \
	VADDPD Y10, Y9, Y9; \
	VMULPD Y9, ui, dst

	ROW(0, 32, 64, UX, Y12)
	ROW(96, 128, 160, UY, Y14)
	ROW(192, 224, 256, UZ, Y15)
#undef ROW
	VADDPD       Y14, Y12, Y12
	VADDPD       Y15, Y12, Y12
	VMULPD       TR(SP), UU, Y9
	VSUBPD       Y12, Y9, Y12  // c
	VMOVUPD      S(SP), Y9
	VMULPD       Y9, Y9, Y14
	VMULPD       UU, Y14, Y14  // (s·s)·uu
	VMULPD       Y12, Y12, Y15
	VADDPD       Y14, Y15, Y15
	VSQRTPD      Y15, Y15
	VADDPD       Y12, Y15, Y15 // dw
	VMULPD       Y15, Y15, Y12
	VADDPD       Y14, Y12, Y12
	VSQRTPD      Y12, Y12
	VBROADCASTSD one<>(SB), Y14
	VDIVPD       Y12, Y14, Y12 // k
	VMULPD       Y12, Y15, Y15 // dw ·= k
	VMULPD       Y9, Y12, Y12  // k ·= s
	VMOVUPD      Y15, DWS(SP)
	VMULPD       Y12, UX, Y15
	VMOVUPD      Y15, DXS(SP)
	VMULPD       Y12, UY, Y15
	VMOVUPD      Y15, DYS(SP)
	VMULPD       Y12, UZ, Y15
	VMOVUPD      Y15, DZS(SP)

	// Where uu > 4·d2 (|ω| > 2), u ·= 2det/√uu and uu = 4·d2.
	VMOVUPD      CAP(SP), Y14
	VSQRTPD      UU, Y15
	VBROADCASTSD two<>(SB), Y12
	VMULPD       DET, Y12, Y12
	VDIVPD       Y15, Y12, Y12 // k = 2·det / √uu
	VMULPD       Y12, UX, Y15
	VBLENDVPD    Y14, Y15, UX, UX
	VMULPD       Y12, UY, Y15
	VBLENDVPD    Y14, Y15, UY, UY
	VMULPD       Y12, UZ, Y15
	VBLENDVPD    Y14, Y15, UZ, UZ
	VBLENDVPD    Y14, FOURD2(SP), UU, UU

	// The turn dq = (dw, d).
	VBROADCASTSD sixteen<>(SB), E
	VMULPD       D2, E, E  // e = 16·d2
	VADDPD       UU, E, K
	VBROADCASTSD one<>(SB), Y9
	VDIVPD       K, Y9, K  // k = 1 / (e + uu)
	VSUBPD       UU, E, E
	VMULPD       K, E, E   // dw = (e − uu)·k
	VBROADCASTSD eight<>(SB), Y9
	VMULPD       DET, Y9, Y9
	VMULPD       Y9, K, K  // k ·= 8·det
	VMULPD       K, UX, UX // dx = ux·k
	VMULPD       K, UY, UY // dy
	VMULPD       K, UZ, UZ // dz

#define DW Y6
#define DX Y3
#define DY Y4
#define DZ Y11
#define QW Y8
#define QX Y9
#define QY Y10
#define QZ Y12

	// Off the Newton region, the line search's turn.
	VMOVUPD   NEWTON(SP), Y9
	VMOVUPD   DWS(SP), Y14
	VBLENDVPD Y9, DW, Y14, DW
	VMOVUPD   DXS(SP), Y14
	VBLENDVPD Y9, DX, Y14, DX
	VMOVUPD   DYS(SP), Y14
	VBLENDVPD Y9, DY, Y14, DY
	VMOVUPD   DZS(SP), Y14
	VBLENDVPD Y9, DZ, Y14, DZ

// STORE stores lane k of v (x its low half) at o + 32k(R10): out[k]'s
// component at offset o.
#define STORE(v, x, o) \
	VMOVSD       x, o(R10); \
	VMOVHPD      x, o+32(R10); \
	VEXTRACTF128 $1, v, X15; \
	VMOVSD       X15, o+64(R10); \
	VMOVHPD      X15, o+96(R10)

	// q ← dq·q into out.
	VMOVUPD 288(SP), QW
	VMOVUPD 320(SP), QX
	VMOVUPD 352(SP), QY
	VMOVUPD 384(SP), QZ
	VMULPD  QW, DW, Y14
	VMULPD  QX, DX, Y15
	VSUBPD  Y15, Y14, Y14
	VMULPD  QY, DY, Y15
	VSUBPD  Y15, Y14, Y14
	VMULPD  QZ, DZ, Y15
	VSUBPD  Y15, Y14, Y14 // nw = ((dw·w − dx·x) − dy·y) − dz·z
	STORE(Y14, X14, 0)
	VMULPD  QX, DW, Y14
	VMULPD  DX, QW, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QZ, DY, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QY, DZ, Y15
	VSUBPD  Y15, Y14, Y14 // nx = ((dw·x + w·dx) + dy·z) − dz·y
	STORE(Y14, X14, 8)
	VMULPD  QY, DW, Y14
	VMULPD  DY, QW, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QX, DZ, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QZ, DX, Y15
	VSUBPD  Y15, Y14, Y14 // ny = ((dw·y + w·dy) + dz·x) − dx·z
	STORE(Y14, X14, 16)
	VMULPD  QZ, DW, Y14
	VMULPD  DZ, QW, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QY, DX, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  QX, DY, Y15
	VSUBPD  Y15, Y14, Y14 // nz = ((dw·z + w·dz) + dx·y) − dy·x
	STORE(Y14, X14, 24)

	VMOVMSKPD OK, AX
	MOVQ      AX, ret+24(FP)
	VZEROUPPER
	RET
