//go:build !purego

#include "textflag.h"

DATA spokeone<>+0(SB)/8, $1.0
GLOBL spokeone<>(SB), RODATA|NOPTR, $8

// spokelanes<>+32(r−1): the lanes of a group of r spokes, all ones in
// lanes 0 to r−1 and zeros above.
DATA spokelanes<>+0(SB)/8, $-1
DATA spokelanes<>+8(SB)/8, $0
DATA spokelanes<>+16(SB)/8, $0
DATA spokelanes<>+24(SB)/8, $0
DATA spokelanes<>+32(SB)/8, $-1
DATA spokelanes<>+40(SB)/8, $-1
DATA spokelanes<>+48(SB)/8, $0
DATA spokelanes<>+56(SB)/8, $0
DATA spokelanes<>+64(SB)/8, $-1
DATA spokelanes<>+72(SB)/8, $-1
DATA spokelanes<>+80(SB)/8, $-1
DATA spokelanes<>+88(SB)/8, $0
DATA spokelanes<>+96(SB)/8, $-1
DATA spokelanes<>+104(SB)/8, $-1
DATA spokelanes<>+112(SB)/8, $-1
DATA spokelanes<>+120(SB)/8, $-1
GLOBL spokelanes<>(SB), RODATA|NOPTR, $128

// PAIR loads the two float64 at off in each of the four lanes' records
// (R0, R1, R2, R3), transposed: lane j of lo gets the first of lane j's
// record, lane j of hi the second. It uses ylo (lo may be it) and yt
// (neither lo nor hi) in between, lanes 0 and 2 in ylo, 1 and 3 in yt.
#define PAIR(R0, R1, R2, R3, off, lo, hi, xlo, ylo, xt, yt) \
	VMOVUPD     off(R0), xlo; \
	VINSERTF128 $1, off(R2), ylo, ylo; \
	VMOVUPD     off(R1), xt; \
	VINSERTF128 $1, off(R3), yt, yt; \
	VUNPCKHPD   yt, ylo, hi; \
	VUNPCKLPD   yt, ylo, lo

// func spokesAVX(b, x *[3]float64, infl *influence, n int, segs *preparedSegment)
//
// Y0-Y2: x in every lane; Y3: the sums b (lane 3 a spare, Σ f·d2 again);
// Y6: 1; Y7: 0. Per group of four spokes, lane j spoke j of the group,
// everything in 4-wide vectors: the segments' a, d and dn and the
// influences' w and w·|d⁰| loaded lane by lane (PAIR; VGATHERDPD is the
// slower on AMD's Zen), then offset's operations in its order (x − a,
// t = ((x−a)0·dn0 + (x−a)1·dn1) + (x−a)2·dn2, the clamp max(0, min(1,
// t)), d = (x−a) − t·d) and spokesGo's (|d|² = (d0² + d1²) + d2², |d|,
// f = w·|d⁰|/|d| − w, f·d). The products of spokes with |d| > 0 and +0
// for the others are transposed to one vector per spoke and added to the
// sums one spoke after the other, in spoke order; a sum that starts at
// +0 is never −0, so adding +0 leaves it as it is. The last group may be
// short (r = n mod 4 spokes): its missing lanes repeat the group's first
// spoke (no load beyond infl's n records) and are masked to +0.
TEXT ·spokesAVX(SB), NOSPLIT, $0-40
	MOVQ         b+0(FP), DI
	MOVQ         x+8(FP), AX
	MOVQ         infl+16(FP), SI
	MOVQ         n+24(FP), CX
	MOVQ         segs+32(FP), R9
	VBROADCASTSD (AX), Y0
	VBROADCASTSD 8(AX), Y1
	VBROADCASTSD 16(AX), Y2
	VXORPD       Y3, Y3, Y3
	VBROADCASTSD spokeone<>(SB), Y6
	VXORPD       Y7, Y7, Y7

group:
	// R13: the group's lanes (r = min(n left, 4)); SI, R10, R11, R12:
	// its influences, those past the last one the first.
	MOVQ    $4, AX
	CMPQ    CX, AX
	CMOVQLT CX, AX
	SHLQ    $5, AX
	LEAQ    spokelanes<>(SB), R13
	LEAQ    -32(R13)(AX*1), R13
	LEAQ    24(SI), R10
	CMPQ    CX, $1
	CMOVQLE SI, R10
	LEAQ    48(SI), R11
	CMPQ    CX, $2
	CMOVQLE SI, R11
	LEAQ    72(SI), R12
	CMPQ    CX, $3
	CMOVQLE SI, R12

	// AX, BX, DX, R8: the lanes' segments.
	MOVLQSX (SI), AX
	LEAQ    (AX)(AX*8), AX
	LEAQ    (R9)(AX*8), AX
	MOVLQSX (R10), BX
	LEAQ    (BX)(BX*8), BX
	LEAQ    (R9)(BX*8), BX
	MOVLQSX (R11), DX
	LEAQ    (DX)(DX*8), DX
	LEAQ    (R9)(DX*8), DX
	MOVLQSX (R12), R8
	LEAQ    (R8)(R8*8), R8
	LEAQ    (R9)(R8*8), R8

	PAIR(AX, BX, DX, R8, 0, Y8, Y9, X8, Y8, X15, Y15)       // a0, a1
	VSUBPD Y8, Y0, Y8                                        // e = x − a
	VSUBPD Y9, Y1, Y9
	PAIR(AX, BX, DX, R8, 16, Y10, Y11, X10, Y10, X15, Y15)  // a2, d0
	VSUBPD Y10, Y2, Y10
	PAIR(AX, BX, DX, R8, 48, Y12, Y13, X12, Y12, X15, Y15)  // dn0, dn1
	VMULPD Y12, Y8, Y12                                      // t = (e0·dn0 + e1·dn1) + e2·dn2
	VMULPD Y13, Y9, Y13
	VADDPD Y13, Y12, Y12
	PAIR(AX, BX, DX, R8, 56, Y13, Y14, X13, Y13, X15, Y15)  // dn1, dn2
	VMULPD Y14, Y10, Y14
	VADDPD Y14, Y12, Y12
	VMINPD Y12, Y6, Y12                                      // min(1, t), NaN if t is
	VMAXPD Y12, Y7, Y12                                      // max(0, ·), NaN if · is, · if both are zeros
	VADDPD Y7, Y12, Y12                                      // −0 to +0, as Go's max(0, −0)
	VMULPD Y11, Y12, Y11                                     // d0 = e0 − t·d0
	VSUBPD Y11, Y8, Y8
	PAIR(AX, BX, DX, R8, 32, Y13, Y14, X13, Y13, X15, Y15)  // d1, d2
	VMULPD Y13, Y12, Y13
	VSUBPD Y13, Y9, Y9
	VMULPD Y14, Y12, Y14
	VSUBPD Y14, Y10, Y10
	VMULPD Y8, Y8, Y11                                       // |d|² = (d0² + d1²) + d2²
	VMULPD Y9, Y9, Y12
	VADDPD Y12, Y11, Y11
	VMULPD Y10, Y10, Y12
	VADDPD Y12, Y11, Y11
	VSQRTPD Y11, Y11                                         // l
	VCMPPD $0x1e, Y7, Y11, Y12                               // l > 0 (false for NaN)
	VANDPD (R13), Y12, Y12                                   // and a lane of the group
	PAIR(SI, R10, R11, R12, 8, Y13, Y15, X13, Y13, X14, Y14) // w, w·|d⁰|
	VDIVPD Y11, Y15, Y15
	VSUBPD Y13, Y15, Y15                                     // f = w·|d⁰|/l − w
	VMULPD Y8, Y15, Y8
	VANDPD Y12, Y8, Y8                                       // f·d0 or +0
	VMULPD Y9, Y15, Y9
	VANDPD Y12, Y9, Y9
	VMULPD Y10, Y15, Y10
	VANDPD Y12, Y10, Y10

	// The products by spoke, (f·d0, f·d1, f·d2, f·d2) for spoke j in
	// Y11-Y14, added to the sums one spoke after the other.
	VUNPCKLPD  Y9, Y8, Y11      // f·d0, f·d1 of spokes 0 and 2
	VUNPCKHPD  Y9, Y8, Y12      // of spokes 1 and 3
	VUNPCKLPD  Y10, Y10, Y13    // f·d2 twice of spokes 0 and 2
	VUNPCKHPD  Y10, Y10, Y14    // of spokes 1 and 3
	VPERM2F128 $0x20, Y13, Y11, Y8
	VADDPD     Y8, Y3, Y3
	VPERM2F128 $0x20, Y14, Y12, Y9
	VADDPD     Y9, Y3, Y3
	VPERM2F128 $0x31, Y13, Y11, Y8
	VADDPD     Y8, Y3, Y3
	VPERM2F128 $0x31, Y14, Y12, Y9
	VADDPD     Y9, Y3, Y3

	ADDQ $96, SI
	SUBQ $4, CX
	JGT  group

	VMOVUPD      X3, (DI)
	VEXTRACTF128 $1, Y3, X4
	VMOVSD       X4, 16(DI)
	VZEROUPPER
	RET
