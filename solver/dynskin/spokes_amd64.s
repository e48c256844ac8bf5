//go:build !purego

#include "textflag.h"

DATA spokeone<>+0(SB)/8, $1.0
GLOBL spokeone<>(SB), RODATA|NOPTR, $8

// Frame slots, four float64 each, lane j at 8j: the spokes d (three
// components), |d|², w and w·|d⁰|.
#define D0 0
#define D1 32
#define D2 64
#define L2 96
#define W 128
#define WL0 160

// LANE4 loads slot s into dst by 8-byte loads, which the 8-byte stores
// that filled it forward to (a 32-byte load would wait for them).
#define LANE4(s, dst) \
	VMOVSD      s(SP), X14; \
	VMOVHPD     s+8(SP), X14, X14; \
	VMOVSD      s+16(SP), X15; \
	VMOVHPD     s+24(SP), X15, X15; \
	VINSERTF128 $1, X15, Y14, dst

// func spokesAVX(b, x *[3]float64, infl *influence, n int, segs *preparedSegment)
//
// X0-X2: x; X3-X5: the sums b; X6: 1; X7: 0. Per group of four spokes
// (the last possibly short, its missing lanes |d|² = 0), each spoke's d
// and |d|² in scalar operations as offset and spokesGo compute them, then
// |d|, the factors and the products in 4-wide vectors, the products of
// spokes with |d| > 0 and +0 for the others (which leaves a sum that
// starts at +0 as it is) added to the sums lane by lane in spoke order.
TEXT ·spokesAVX(SB), NOSPLIT, $192-40
	MOVQ   b+0(FP), DI
	MOVQ   x+8(FP), AX
	MOVQ   infl+16(FP), SI
	MOVQ   n+24(FP), CX
	MOVQ   segs+32(FP), R9
	VMOVSD (AX), X0
	VMOVSD 8(AX), X1
	VMOVSD 16(AX), X2
	VXORPD X3, X3, X3
	VXORPD X4, X4, X4
	VXORPD X5, X5, X5
	VMOVSD spokeone<>(SB), X6
	VXORPD Y7, Y7, Y7

group:
	VMOVUPD Y7, D0(SP) // the lanes of a short group stay 0 (not denormal garbage)
	VMOVUPD Y7, D1(SP)
	VMOVUPD Y7, D2(SP)
	VMOVUPD Y7, L2(SP)
	VMOVUPD Y7, W(SP)
	VMOVUPD Y7, WL0(SP)
	XORQ    DX, DX

spoke:
	MOVLQSX (SI), AX
	IMUL3Q  $72, AX, AX
	LEAQ    (R9)(AX*1), BX
	VSUBSD  (BX), X0, X8    // x − a
	VSUBSD  8(BX), X1, X9
	VSUBSD  16(BX), X2, X10
	VMULSD  48(BX), X8, X11 // t = (x−a)·dn, in order
	VMULSD  56(BX), X9, X12
	VADDSD  X12, X11, X11
	VMULSD  64(BX), X10, X12
	VADDSD  X12, X11, X11
	VMINSD  X11, X6, X11    // min(1, t), NaN if t is
	VMAXSD  X11, X7, X11    // max(0, ·), NaN if · is, · if both are zeros
	VADDSD  X7, X11, X11    // −0 to +0, as Go's max(0, −0)
	VMULSD  24(BX), X11, X12
	VSUBSD  X12, X8, X8     // d0 = (x−a)0 − t·d0
	VMULSD  32(BX), X11, X12
	VSUBSD  X12, X9, X9
	VMULSD  40(BX), X11, X12
	VSUBSD  X12, X10, X10
	VMULSD  X8, X8, X11     // |d|² = (d0² + d1²) + d2²
	VMULSD  X9, X9, X12
	VADDSD  X12, X11, X11
	VMULSD  X10, X10, X12
	VADDSD  X12, X11, X11
	VMOVSD  X8, D0(SP)(DX*8)
	VMOVSD  X9, D1(SP)(DX*8)
	VMOVSD  X10, D2(SP)(DX*8)
	VMOVSD  X11, L2(SP)(DX*8)
	MOVQ    8(SI), AX
	MOVQ    AX, W(SP)(DX*8)
	MOVQ    16(SI), AX
	MOVQ    AX, WL0(SP)(DX*8)
	ADDQ    $24, SI
	INCQ    DX
	DECQ    CX
	JZ      sums
	CMPQ    DX, $4
	JNE     spoke

sums:
	LANE4(L2, Y8)
	VSQRTPD Y8, Y8             // l
	VCMPPD  $0x1e, Y7, Y8, Y9  // l > 0
	LANE4(WL0, Y10)
	VDIVPD  Y8, Y10, Y10
	LANE4(W, Y11)
	VSUBPD  Y11, Y10, Y10      // f = w·|d⁰|/l − w
	LANE4(D0, Y11)
	VMULPD  Y11, Y10, Y11
	VANDPD  Y9, Y11, Y11       // f·d0 or +0
	LANE4(D1, Y12)
	VMULPD  Y12, Y10, Y12
	VANDPD  Y9, Y12, Y12
	LANE4(D2, Y13)
	VMULPD  Y13, Y10, Y13
	VANDPD  Y9, Y13, Y13

#define ADD4(p, yp, b) \
	VADDSD       p, b, b; \
	VPERMILPD    $1, p, X14; \
	VADDSD       X14, b, b; \
	VEXTRACTF128 $1, yp, X15; \
	VADDSD       X15, b, b; \
	VPERMILPD    $1, X15, X14; \
	VADDSD       X14, b, b

	ADD4(X11, Y11, X3)
	ADD4(X12, Y12, X4)
	ADD4(X13, Y13, X5)
#undef ADD4

	TESTQ CX, CX
	JNZ   group

	VMOVSD X3, (DI)
	VMOVSD X4, 8(DI)
	VMOVSD X5, 16(DI)
	VZEROUPPER
	RET
