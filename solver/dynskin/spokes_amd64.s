//go:build !purego

#include "textflag.h"
#include "go_asm.h"
#include "lanes_amd64.h"

DATA spokeone<>+0(SB)/8, $1.0
GLOBL spokeone<>(SB), RODATA|NOPTR, $8

// func spokesAVX(b *[3][4]float64, x *[4]node, rows *spokeRow, n int, segs *preparedSegment)
//
// Lane j is slot j of the group. Y0-Y2: the lanes' positions x; Y3-Y5:
// the lanes' sums b; Y6: 1; Y7: 0. Per row, the four lanes' segments'
// a, d and dn loaded lane by lane (PAIR; VGATHERDPD is the slower on
// AMD's Zen), the row's w and w·|d⁰| as they lie, then offset's
// operations in its order (x − a, t = ((x−a)0·dn0 + (x−a)1·dn1) +
// (x−a)2·dn2, the clamp max(0, min(1, t)), d = (x−a) − t·d) and
// spokesGo's (|d|² = (d0² + d1²) + d2², |d|, f = w·|d⁰|/|d| − w, f·d),
// the products of spokes with |d| > 0 and +0 for the others added to the
// sums. The rows depend on each other only through these three adds, so
// the processor overlaps them.
TEXT ·spokesAVX(SB), NOSPLIT, $0-40
	MOVQ         x+8(FP), AX
	MOVQ         rows+16(FP), SI
	MOVQ         n+24(FP), CX
	MOVQ         segs+32(FP), R9
	LEAQ         node__size(AX), BX
	LEAQ         (2*node__size)(AX), DX
	LEAQ         (3*node__size)(AX), R8
	PAIR(AX, BX, DX, R8, node_x, Y0, Y1, X0, Y0, X15, Y15) // x0, x1
	PAIR(AX, BX, DX, R8, (node_x+16), Y2, Y14, X2, Y2, X15, Y15) // x2 (and v0)
	VXORPD       Y3, Y3, Y3
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VBROADCASTSD spokeone<>(SB), Y6
	VXORPD       Y7, Y7, Y7

row:
	// AX, BX, DX, R8: the lanes' segments.
	MOVLQSX spokeRow_bone(SI), AX
	LEAQ    (AX)(AX*8), AX
	LEAQ    (R9)(AX*8), AX
	MOVLQSX (spokeRow_bone+4)(SI), BX
	LEAQ    (BX)(BX*8), BX
	LEAQ    (R9)(BX*8), BX
	MOVLQSX (spokeRow_bone+8)(SI), DX
	LEAQ    (DX)(DX*8), DX
	LEAQ    (R9)(DX*8), DX
	MOVLQSX (spokeRow_bone+12)(SI), R8
	LEAQ    (R8)(R8*8), R8
	LEAQ    (R9)(R8*8), R8

	PAIR(AX, BX, DX, R8, preparedSegment_a, Y8, Y9, X8, Y8, X15, Y15) // a0, a1
	VSUBPD  Y8, Y0, Y8                                       // e = x − a
	VSUBPD  Y9, Y1, Y9
	PAIR(AX, BX, DX, R8, (preparedSegment_a+16), Y10, Y11, X10, Y10, X15, Y15) // a2, d0
	VSUBPD  Y10, Y2, Y10
	PAIR(AX, BX, DX, R8, preparedSegment_dn, Y12, Y13, X12, Y12, X15, Y15) // dn0, dn1
	VMULPD  Y12, Y8, Y12                                     // t = (e0·dn0 + e1·dn1) + e2·dn2
	VMULPD  Y13, Y9, Y13
	VADDPD  Y13, Y12, Y12
	PAIR(AX, BX, DX, R8, (preparedSegment_dn+8), Y13, Y14, X13, Y13, X15, Y15) // dn1, dn2
	VMULPD  Y14, Y10, Y14
	VADDPD  Y14, Y12, Y12
	VMINPD  Y12, Y6, Y12                                     // min(1, t), NaN if t is
	VMAXPD  Y12, Y7, Y12                                     // max(0, ·), NaN if · is, · if both are zeros
	VADDPD  Y7, Y12, Y12                                     // −0 to +0, as Go's max(0, −0)
	VMULPD  Y11, Y12, Y11                                    // d0 = e0 − t·d0
	VSUBPD  Y11, Y8, Y8
	PAIR(AX, BX, DX, R8, (preparedSegment_d+8), Y13, Y14, X13, Y13, X15, Y15) // d1, d2
	VMULPD  Y13, Y12, Y13
	VSUBPD  Y13, Y9, Y9
	VMULPD  Y14, Y12, Y14
	VSUBPD  Y14, Y10, Y10
	VMULPD  Y8, Y8, Y11                                      // |d|² = (d0² + d1²) + d2²
	VMULPD  Y9, Y9, Y12
	VADDPD  Y12, Y11, Y11
	VMULPD  Y10, Y10, Y12
	VADDPD  Y12, Y11, Y11
	VSQRTPD Y11, Y11                                         // l
	VCMPPD  $0x1e, Y7, Y11, Y12                              // l > 0 (false for NaN)
	VMOVUPD spokeRow_wl0(SI), Y15                             // w·|d⁰|
	VDIVPD  Y11, Y15, Y15
	VSUBPD  spokeRow_w(SI), Y15, Y15                          // f = w·|d⁰|/l − w
	VMULPD  Y8, Y15, Y8
	VANDPD  Y12, Y8, Y8                                      // f·d0 or +0
	VADDPD  Y8, Y3, Y3
	VMULPD  Y9, Y15, Y9
	VANDPD  Y12, Y9, Y9
	VADDPD  Y9, Y4, Y4
	VMULPD  Y10, Y15, Y10
	VANDPD  Y12, Y10, Y10
	VADDPD  Y10, Y5, Y5

	ADDQ $spokeRow__size, SI
	DECQ CX
	JNZ  row

	MOVQ    b+0(FP), DI
	VMOVUPD Y3, (DI)
	VMOVUPD Y4, 32(DI)
	VMOVUPD Y5, 64(DI)
	VZEROUPPER
	RET
