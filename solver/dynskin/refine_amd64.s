//go:build !purego

#include "textflag.h"

DATA one<>+0(SB)/8, $1.0
GLOBL one<>(SB), RODATA|NOPTR, $8
DATA minushalf<>+0(SB)/8, $-0.5
GLOBL minushalf<>(SB), RODATA|NOPTR, $8
DATA four<>+0(SB)/8, $4.0
GLOBL four<>(SB), RODATA|NOPTR, $8
DATA eight<>+0(SB)/8, $8.0
GLOBL eight<>(SB), RODATA|NOPTR, $8
DATA sixteen<>+0(SB)/8, $16.0
GLOBL sixteen<>(SB), RODATA|NOPTR, $8

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

// Frame: a[i] (four lanes) at 32i, q's w, x, y, z at 288, 320, 352, 384.

// func refineNewton4(q *[4]mgl64.Quat, r *[4]ringSums, out *[4]mgl64.Quat) int
//
// Refine's Newton branch (rotation.Refine with tol 0, one step) on lane k
// = q[k], r[k].a of each register, operation for operation in Refine's
// order. The comments name Refine's variables.
TEXT ·refineNewton4(SB), NOSPLIT, $416-32
	MOVQ q+0(FP), SI
	MOVQ r+8(FP), R8
	MOVQ out+16(FP), R10

	LANES(R8, 0, 128, 256, 384, Y0)
	VMOVUPD Y0, 0(SP)
	LANES(R8, 8, 136, 264, 392, Y0)
	VMOVUPD Y0, 32(SP)
	LANES(R8, 16, 144, 272, 400, Y0)
	VMOVUPD Y0, 64(SP)
	LANES(R8, 24, 152, 280, 408, Y0)
	VMOVUPD Y0, 96(SP)
	LANES(R8, 32, 160, 288, 416, Y0)
	VMOVUPD Y0, 128(SP)
	LANES(R8, 40, 168, 296, 424, Y0)
	VMOVUPD Y0, 160(SP)
	LANES(R8, 48, 176, 304, 432, Y0)
	VMOVUPD Y0, 192(SP)
	LANES(R8, 56, 184, 312, 440, Y0)
	VMOVUPD Y0, 224(SP)
	LANES(R8, 64, 192, 320, 448, Y0)
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

	// m = (gx, gy, gz), tr, H.
	VSUBPD       Y4, Y6, Y2   // gx = m21 − m12
	VSUBPD       Y13, Y1, Y5  // gy = m02 − m20
	VSUBPD       Y0, Y12, Y8  // gz = m10 − m01
	VADDPD       Y3, Y11, Y9
	VADDPD       Y7, Y9, Y9   // tr = (m00 + m11) + m22
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

	// The cofactors and det H; Y9 is the scratch register.
	VMULPD H22, H11, C00
	VMULPD H12, H12, Y9
	VSUBPD Y9, C00, C00  // c00 = h11·h22 − h12·h12
	VMULPD H12, H02, C01
	VMULPD H22, H01, Y9
	VSUBPD Y9, C01, C01  // c01 = h02·h12 − h01·h22
	VMULPD H12, H01, C02
	VMULPD H11, H02, Y9
	VSUBPD Y9, C02, C02  // c02 = h01·h12 − h02·h11
	VMULPD C00, H00, DET
	VMULPD C01, H01, Y9
	VADDPD Y9, DET, DET
	VMULPD C02, H02, Y9
	VADDPD Y9, DET, DET  // det = (h00·c00 + h01·c01) + h02·c02
	VMULPD H22, H00, C11
	VMULPD H02, H02, Y9
	VSUBPD Y9, C11, C11  // c11 = h00·h22 − h02·h02
	VMULPD H02, H01, C12
	VMULPD H12, H00, Y9
	VSUBPD Y9, C12, C12  // c12 = h01·h02 − h00·h12
	VMULPD H11, H00, C22 // (h22 is dead)
	VMULPD H01, H01, Y9
	VSUBPD Y9, C22, C22  // c22 = h00·h11 − h01·h01

#define ZERO Y0
#define OK Y1
#define UX Y3
#define UY Y4
#define UZ Y11

	// newton = h00 > 0 && c22 > 0 && det > 0.
	VXORPD ZERO, ZERO, ZERO
	VCMPPD GT, ZERO, H00, OK
	VCMPPD GT, ZERO, C22, Y9
	VANDPD Y9, OK, OK
	VCMPPD GT, ZERO, DET, Y9
	VANDPD Y9, OK, OK

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

	// ok = newton && uu > 0·d2 && !(uu > 4·d2): Refine with tol 0 takes
	// the step below (not returning q, not capping |ω|).
	VMULPD       ZERO, D2, Y9
	VCMPPD       GT, Y9, UU, Y9
	VANDPD       Y9, OK, OK
	VBROADCASTSD four<>(SB), Y9
	VMULPD       D2, Y9, Y9
	VCMPPD       GT, Y9, UU, Y9
	VANDNPD      OK, Y9, OK

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
