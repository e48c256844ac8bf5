//go:build !purego

#include "textflag.h"

// func kern8x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int)
//
// C[0:8, 0:4] = Cin[0:8, 0:4] − Σ_p A[0:8, p]·B[0:4, p]ᵀ, column-major, the
// sum accumulated with fused multiply-adds in increasing p.
TEXT ·kern8x4fma(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $3, R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JZ    store8

loop8:
	VMOVUPD      (SI), Y8
	VMOVUPD      32(SI), Y9
	VBROADCASTSD (DI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(DI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(DI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(DI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         R8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop8

store8:
	MOVQ    c+40(FP), DX
	MOVQ    ldc+48(FP), R10
	SHLQ    $3, R10
	MOVQ    cin+56(FP), BX
	MOVQ    ldcin+64(FP), R11
	SHLQ    $3, R11
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VSUBPD  Y0, Y8, Y8
	VSUBPD  Y1, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VSUBPD  Y2, Y8, Y8
	VSUBPD  Y3, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VSUBPD  Y4, Y8, Y8
	VSUBPD  Y5, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VMOVUPD 32(BX), Y9
	VSUBPD  Y6, Y8, Y8
	VSUBPD  Y7, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	VZEROUPPER
	RET

// func kern4x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int)
//
// C[0:4, 0:4] = Cin[0:4, 0:4] − Σ_p A[0:4, p]·B[0:4, p]ᵀ, as kern8x4fma.
TEXT ·kern4x4fma(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $3, R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ    store4

loop4:
	VMOVUPD      (SI), Y8
	VBROADCASTSD (DI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VBROADCASTSD 8(DI), Y11
	VFMADD231PD  Y8, Y11, Y1
	VBROADCASTSD 16(DI), Y12
	VFMADD231PD  Y8, Y12, Y2
	VBROADCASTSD 24(DI), Y13
	VFMADD231PD  Y8, Y13, Y3
	ADDQ         R8, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop4

store4:
	MOVQ    c+40(FP), DX
	MOVQ    ldc+48(FP), R10
	SHLQ    $3, R10
	MOVQ    cin+56(FP), BX
	MOVQ    ldcin+64(FP), R11
	SHLQ    $3, R11
	VMOVUPD (BX), Y8
	VSUBPD  Y0, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VSUBPD  Y1, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VSUBPD  Y2, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ    R10, DX
	ADDQ    R11, BX
	VMOVUPD (BX), Y8
	VSUBPD  Y3, Y8, Y8
	VMOVUPD Y8, (DX)
	VZEROUPPER
	RET

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func subScaledAVX(y *float64, a float64, x *float64, n int)
//
// y[i] = y[i] − a·x[i] for i < n, the product rounded before the
// subtraction (no fused multiply-add), as the portable loop computes it.
TEXT ·subScaledAVX(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), DI
	VBROADCASTSD a+8(FP), Y0
	MOVQ         x+16(FP), SI
	MOVQ         n+24(FP), CX

sub8:
	CMPQ    CX, $8
	JL      sub4
	VMOVUPD (SI), Y1
	VMOVUPD 32(SI), Y2
	VMULPD  Y0, Y1, Y1
	VMULPD  Y0, Y2, Y2
	VMOVUPD (DI), Y3
	VMOVUPD 32(DI), Y4
	VSUBPD  Y1, Y3, Y3
	VSUBPD  Y2, Y4, Y4
	VMOVUPD Y3, (DI)
	VMOVUPD Y4, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX
	JMP     sub8

sub4:
	CMPQ    CX, $4
	JL      sub1
	VMOVUPD (SI), Y1
	VMULPD  Y0, Y1, Y1
	VMOVUPD (DI), Y3
	VSUBPD  Y1, Y3, Y3
	VMOVUPD Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX

sub1:
	TESTQ  CX, CX
	JZ     subdone
	VMOVSD (SI), X1
	VMULSD X0, X1, X1
	VMOVSD (DI), X3
	VSUBSD X1, X3, X3
	VMOVSD X3, (DI)
	ADDQ   $8, SI
	ADDQ   $8, DI
	DECQ   CX
	JMP    sub1

subdone:
	VZEROUPPER
	RET

// The nine-row kernels below read f as nine rows of l numbers, row c at
// f + c·l·8: R13 points at column k of row 0, R14 at column k of row 4,
// R8 = l·8 and R9 = 3·l·8, so that row c is at (R13), (R13)(R8*1),
// (R13)(R8*2), (R13)(R9*1), (R14), (R14)(R8*1), (R14)(R8*2), (R14)(R9*1)
// and (R14)(R8*4).

// func mul9AVX(dst *float64, stride int, rows int, a *float64, f *float64, l int, add int)
//
// dst[i·stride + k] = (add ≠ 0 ? dst[i·stride + k] : 0) + Σ_c a[9i + c]·f[c·l + k]
// for i < rows, k < l: the even c summed in one chain of fused
// multiply-adds and the odd c in another, the two added, then dst.
TEXT ·mul9AVX(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), BX
	SHLQ $3, BX
	MOVQ rows+16(FP), CX
	MOVQ a+24(FP), SI
	MOVQ f+32(FP), DX
	MOVQ l+40(FP), R8
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R9
	MOVQ add+48(FP), R11

mrow:
	TESTQ        CX, CX
	JZ           mdone
	VBROADCASTSD (SI), Y0
	VBROADCASTSD 8(SI), Y1
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	VBROADCASTSD 32(SI), Y4
	VBROADCASTSD 40(SI), Y5
	VBROADCASTSD 48(SI), Y6
	VBROADCASTSD 56(SI), Y7
	VBROADCASTSD 64(SI), Y8
	MOVQ         DX, R13
	LEAQ         (DX)(R8*4), R14
	MOVQ         DI, AX
	MOVQ         R8, R12
	SHRQ         $3, R12

m8:
	CMPQ        R12, $8
	JL          m4
	VMULPD      (R13), Y0, Y9
	VMULPD      (R13)(R8*1), Y1, Y10
	VMULPD      32(R13), Y0, Y11
	VMULPD      32(R13)(R8*1), Y1, Y12
	VFMADD231PD (R13)(R8*2), Y2, Y9
	VFMADD231PD (R13)(R9*1), Y3, Y10
	VFMADD231PD 32(R13)(R8*2), Y2, Y11
	VFMADD231PD 32(R13)(R9*1), Y3, Y12
	VFMADD231PD (R14), Y4, Y9
	VFMADD231PD (R14)(R8*1), Y5, Y10
	VFMADD231PD 32(R14), Y4, Y11
	VFMADD231PD 32(R14)(R8*1), Y5, Y12
	VFMADD231PD (R14)(R8*2), Y6, Y9
	VFMADD231PD (R14)(R9*1), Y7, Y10
	VFMADD231PD 32(R14)(R8*2), Y6, Y11
	VFMADD231PD 32(R14)(R9*1), Y7, Y12
	VFMADD231PD (R14)(R8*4), Y8, Y9
	VFMADD231PD 32(R14)(R8*4), Y8, Y11
	VADDPD      Y10, Y9, Y9
	VADDPD      Y12, Y11, Y11
	TESTQ       R11, R11
	JZ          m8store
	VADDPD      (AX), Y9, Y9
	VADDPD      32(AX), Y11, Y11

m8store:
	VMOVUPD Y9, (AX)
	VMOVUPD Y11, 32(AX)
	ADDQ    $64, R13
	ADDQ    $64, R14
	ADDQ    $64, AX
	SUBQ    $8, R12
	JMP     m8

m4:
	CMPQ        R12, $4
	JL          m1
	VMULPD      (R13), Y0, Y9
	VMULPD      (R13)(R8*1), Y1, Y10
	VFMADD231PD (R13)(R8*2), Y2, Y9
	VFMADD231PD (R13)(R9*1), Y3, Y10
	VFMADD231PD (R14), Y4, Y9
	VFMADD231PD (R14)(R8*1), Y5, Y10
	VFMADD231PD (R14)(R8*2), Y6, Y9
	VFMADD231PD (R14)(R9*1), Y7, Y10
	VFMADD231PD (R14)(R8*4), Y8, Y9
	VADDPD      Y10, Y9, Y9
	TESTQ       R11, R11
	JZ          m4store
	VADDPD      (AX), Y9, Y9

m4store:
	VMOVUPD Y9, (AX)
	ADDQ    $32, R13
	ADDQ    $32, R14
	ADDQ    $32, AX
	SUBQ    $4, R12

m1:
	TESTQ       R12, R12
	JZ          mrowdone
	VMULSD      (R13), X0, X9
	VMULSD      (R13)(R8*1), X1, X10
	VFMADD231SD (R13)(R8*2), X2, X9
	VFMADD231SD (R13)(R9*1), X3, X10
	VFMADD231SD (R14), X4, X9
	VFMADD231SD (R14)(R8*1), X5, X10
	VFMADD231SD (R14)(R8*2), X6, X9
	VFMADD231SD (R14)(R9*1), X7, X10
	VFMADD231SD (R14)(R8*4), X8, X9
	VADDSD      X10, X9, X9
	TESTQ       R11, R11
	JZ          m1store
	VADDSD      (AX), X9, X9

m1store:
	VMOVSD X9, (AX)
	ADDQ   $8, R13
	ADDQ   $8, R14
	ADDQ   $8, AX
	DECQ   R12
	JMP    m1

mrowdone:
	ADDQ $72, SI
	ADDQ BX, DI
	DECQ CX
	JMP  mrow

mdone:
	VZEROUPPER
	RET

// func dots9AVX(dst *float64, w *float64, f *float64, l int)
//
// dst[c] = Σ_k w[k]·f[c·l + k] for c < 9: each c's products summed with
// fused multiply-adds four lanes at a time, the lanes added ((0 + 2) +
// (1 + 3)), then the remaining k in order.
TEXT ·dots9AVX(SB), NOSPLIT, $0-32
	MOVQ   dst+0(FP), DI
	MOVQ   w+8(FP), SI
	MOVQ   f+16(FP), R13
	MOVQ   l+24(FP), R12
	MOVQ   R12, R8
	SHLQ   $3, R8
	LEAQ   (R8)(R8*2), R9
	LEAQ   (R13)(R8*4), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8

d4:
	CMPQ        R12, $4
	JL          dsum
	VMOVUPD     (SI), Y9
	VFMADD231PD (R13), Y9, Y0
	VFMADD231PD (R13)(R8*1), Y9, Y1
	VFMADD231PD (R13)(R8*2), Y9, Y2
	VFMADD231PD (R13)(R9*1), Y9, Y3
	VFMADD231PD (R14), Y9, Y4
	VFMADD231PD (R14)(R8*1), Y9, Y5
	VFMADD231PD (R14)(R8*2), Y9, Y6
	VFMADD231PD (R14)(R9*1), Y9, Y7
	VFMADD231PD (R14)(R8*4), Y9, Y8
	ADDQ        $32, SI
	ADDQ        $32, R13
	ADDQ        $32, R14
	SUBQ        $4, R12
	JMP         d4

dsum:
	VEXTRACTF128 $1, Y0, X10
	VADDPD       X10, X0, X0
	VHADDPD      X0, X0, X0
	VEXTRACTF128 $1, Y1, X10
	VADDPD       X10, X1, X1
	VHADDPD      X1, X1, X1
	VEXTRACTF128 $1, Y2, X10
	VADDPD       X10, X2, X2
	VHADDPD      X2, X2, X2
	VEXTRACTF128 $1, Y3, X10
	VADDPD       X10, X3, X3
	VHADDPD      X3, X3, X3
	VEXTRACTF128 $1, Y4, X10
	VADDPD       X10, X4, X4
	VHADDPD      X4, X4, X4
	VEXTRACTF128 $1, Y5, X10
	VADDPD       X10, X5, X5
	VHADDPD      X5, X5, X5
	VEXTRACTF128 $1, Y6, X10
	VADDPD       X10, X6, X6
	VHADDPD      X6, X6, X6
	VEXTRACTF128 $1, Y7, X10
	VADDPD       X10, X7, X7
	VHADDPD      X7, X7, X7
	VEXTRACTF128 $1, Y8, X10
	VADDPD       X10, X8, X8
	VHADDPD      X8, X8, X8

d1:
	TESTQ       R12, R12
	JZ          dstore
	VMOVSD      (SI), X9
	VFMADD231SD (R13), X9, X0
	VFMADD231SD (R13)(R8*1), X9, X1
	VFMADD231SD (R13)(R8*2), X9, X2
	VFMADD231SD (R13)(R9*1), X9, X3
	VFMADD231SD (R14), X9, X4
	VFMADD231SD (R14)(R8*1), X9, X5
	VFMADD231SD (R14)(R8*2), X9, X6
	VFMADD231SD (R14)(R9*1), X9, X7
	VFMADD231SD (R14)(R8*4), X9, X8
	ADDQ        $8, SI
	ADDQ        $8, R13
	ADDQ        $8, R14
	DECQ        R12
	JMP         d1

dstore:
	VMOVSD X0, (DI)
	VMOVSD X1, 8(DI)
	VMOVSD X2, 16(DI)
	VMOVSD X3, 24(DI)
	VMOVSD X4, 32(DI)
	VMOVSD X5, 40(DI)
	VMOVSD X6, 48(DI)
	VMOVSD X7, 56(DI)
	VMOVSD X8, 64(DI)
	VZEROUPPER
	RET

// func widenAVX(dst *float64, src *float32, n int)
//
// dst[i] = float64(src[i]) for i < n (exact). It prefetches src 2 KB
// ahead: the meshik pass widens a triangle's 864 bytes of factors between
// long stretches of other work, too slowly for the hardware's stream
// prefetch (the 135k horse's triangle pass 72.5-73 ms against 75-77,
// 512 bytes ahead 74-76).
TEXT ·widenAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

w8:
	CMPQ      CX, $8
	JL        w4
	PREFETCHT0 2048(SI)
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VMOVUPD   Y0, (DI)
	VMOVUPD   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JMP       w8

w4:
	CMPQ      CX, $4
	JL        w1
	VCVTPS2PD (SI), Y0
	VMOVUPD   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $4, CX

w1:
	TESTQ     CX, CX
	JZ        wdone
	VCVTSS2SD (SI), X0, X0
	VMOVSD    X0, (DI)
	ADDQ      $4, SI
	ADDQ      $8, DI
	DECQ      CX
	JMP       w1

wdone:
	VZEROUPPER
	RET

// func scatter3AVX(d0, d1, d2 *float64, ds int, rows *float64, rs int, coef *float64, n int)
//
// For corners q = 0, 1, 2 (rows d_q) and coordinates r = 0, 1, 2:
// d_q[r·ds + k] = (d_q[r·ds + k] + coef[q]·rows[2r·rs + k]) + coef[3 + q]·rows[(2r + 1)·rs + k]
// for k < n, with fused multiply-adds.
TEXT ·scatter3AVX(SB), NOSPLIT, $0-64
	MOVQ         d0+0(FP), DI
	MOVQ         d1+8(FP), SI
	MOVQ         d2+16(FP), DX
	MOVQ         ds+24(FP), R8
	SHLQ         $3, R8
	MOVQ         rows+32(FP), R9
	MOVQ         rs+40(FP), R10
	SHLQ         $3, R10
	MOVQ         coef+48(FP), R11
	MOVQ         n+56(FP), CX
	LEAQ         (R10)(R10*2), R12
	VBROADCASTSD (R11), Y0
	VBROADCASTSD 8(R11), Y1
	VBROADCASTSD 16(R11), Y2
	VBROADCASTSD 24(R11), Y3
	VBROADCASTSD 32(R11), Y4
	VBROADCASTSD 40(R11), Y5

sc4:
	CMPQ        CX, $4
	JL          sc1
	LEAQ        (R9)(R10*4), R13
	VMOVUPD     (R9), Y6
	VMOVUPD     (R9)(R10*1), Y7
	VMOVUPD     (R9)(R10*2), Y8
	VMOVUPD     (R9)(R12*1), Y9
	VMOVUPD     (R13), Y10
	VMOVUPD     (R13)(R10*1), Y11
	VMOVUPD     (DI), Y12
	VFMADD231PD Y6, Y0, Y12
	VFMADD231PD Y7, Y3, Y12
	VMOVUPD     Y12, (DI)
	VMOVUPD     (DI)(R8*1), Y12
	VFMADD231PD Y8, Y0, Y12
	VFMADD231PD Y9, Y3, Y12
	VMOVUPD     Y12, (DI)(R8*1)
	VMOVUPD     (DI)(R8*2), Y12
	VFMADD231PD Y10, Y0, Y12
	VFMADD231PD Y11, Y3, Y12
	VMOVUPD     Y12, (DI)(R8*2)
	VMOVUPD     (SI), Y12
	VFMADD231PD Y6, Y1, Y12
	VFMADD231PD Y7, Y4, Y12
	VMOVUPD     Y12, (SI)
	VMOVUPD     (SI)(R8*1), Y12
	VFMADD231PD Y8, Y1, Y12
	VFMADD231PD Y9, Y4, Y12
	VMOVUPD     Y12, (SI)(R8*1)
	VMOVUPD     (SI)(R8*2), Y12
	VFMADD231PD Y10, Y1, Y12
	VFMADD231PD Y11, Y4, Y12
	VMOVUPD     Y12, (SI)(R8*2)
	VMOVUPD     (DX), Y12
	VFMADD231PD Y6, Y2, Y12
	VFMADD231PD Y7, Y5, Y12
	VMOVUPD     Y12, (DX)
	VMOVUPD     (DX)(R8*1), Y12
	VFMADD231PD Y8, Y2, Y12
	VFMADD231PD Y9, Y5, Y12
	VMOVUPD     Y12, (DX)(R8*1)
	VMOVUPD     (DX)(R8*2), Y12
	VFMADD231PD Y10, Y2, Y12
	VFMADD231PD Y11, Y5, Y12
	VMOVUPD     Y12, (DX)(R8*2)
	ADDQ        $32, R9
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, DX
	SUBQ        $4, CX
	JMP         sc4

sc1:
	TESTQ       CX, CX
	JZ          scdone
	LEAQ        (R9)(R10*4), R13
	VMOVSD      (R9), X6
	VMOVSD      (R9)(R10*1), X7
	VMOVSD      (R9)(R10*2), X8
	VMOVSD      (R9)(R12*1), X9
	VMOVSD      (R13), X10
	VMOVSD      (R13)(R10*1), X11
	VMOVSD      (DI), X12
	VFMADD231SD X6, X0, X12
	VFMADD231SD X7, X3, X12
	VMOVSD      X12, (DI)
	VMOVSD      (DI)(R8*1), X12
	VFMADD231SD X8, X0, X12
	VFMADD231SD X9, X3, X12
	VMOVSD      X12, (DI)(R8*1)
	VMOVSD      (DI)(R8*2), X12
	VFMADD231SD X10, X0, X12
	VFMADD231SD X11, X3, X12
	VMOVSD      X12, (DI)(R8*2)
	VMOVSD      (SI), X12
	VFMADD231SD X6, X1, X12
	VFMADD231SD X7, X4, X12
	VMOVSD      X12, (SI)
	VMOVSD      (SI)(R8*1), X12
	VFMADD231SD X8, X1, X12
	VFMADD231SD X9, X4, X12
	VMOVSD      X12, (SI)(R8*1)
	VMOVSD      (SI)(R8*2), X12
	VFMADD231SD X10, X1, X12
	VFMADD231SD X11, X4, X12
	VMOVSD      X12, (SI)(R8*2)
	VMOVSD      (DX), X12
	VFMADD231SD X6, X2, X12
	VFMADD231SD X7, X5, X12
	VMOVSD      X12, (DX)
	VMOVSD      (DX)(R8*1), X12
	VFMADD231SD X8, X2, X12
	VFMADD231SD X9, X5, X12
	VMOVSD      X12, (DX)(R8*1)
	VMOVSD      (DX)(R8*2), X12
	VFMADD231SD X10, X2, X12
	VFMADD231SD X11, X5, X12
	VMOVSD      X12, (DX)(R8*2)
	ADDQ        $8, R9
	ADDQ        $8, DI
	ADDQ        $8, SI
	ADDQ        $8, DX
	DECQ        CX
	JMP         sc1

scdone:
	VZEROUPPER
	RET

// func gdots4AVX(m int, a *float64, lda int, idx *int32, x *float64, ldx int, out *float64)
//
// out[4j + c] = Σ_q a[j·lda + q]·x[idx[q]·ldx + c] for j, c < 4, with
// fused multiply-adds: the even q summed in one set of accumulators, the
// odd in another, the two added at the end.
TEXT ·gdots4AVX(SB), NOSPLIT, $0-56
	MOVQ    m+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    lda+16(FP), R8
	SHLQ    $3, R8
	MOVQ    idx+24(FP), DX
	MOVQ    x+32(FP), DI
	MOVQ    ldx+40(FP), R9
	SHLQ    $3, R9
	MOVQ    out+48(FP), R10
	LEAQ    (R8)(R8*2), R11
	VXORPD  Y0, Y0, Y0
	VXORPD  Y1, Y1, Y1
	VXORPD  Y2, Y2, Y2
	VXORPD  Y3, Y3, Y3
	VXORPD  Y8, Y8, Y8
	VXORPD  Y9, Y9, Y9
	VXORPD  Y10, Y10, Y10
	VXORPD  Y11, Y11, Y11

gd4two:
	CMPQ         CX, $2
	JL           gd4one
	MOVLQSX      (DX), AX
	IMULQ        R9, AX
	MOVLQSX      4(DX), BX
	IMULQ        R9, BX
	VMOVUPD      (DI)(AX*1), Y4
	VMOVUPD      (DI)(BX*1), Y5
	VBROADCASTSD (SI), Y6
	VBROADCASTSD 8(SI), Y7
	VFMADD231PD  Y4, Y6, Y0
	VFMADD231PD  Y5, Y7, Y8
	VBROADCASTSD (SI)(R8*1), Y6
	VBROADCASTSD 8(SI)(R8*1), Y7
	VFMADD231PD  Y4, Y6, Y1
	VFMADD231PD  Y5, Y7, Y9
	VBROADCASTSD (SI)(R8*2), Y6
	VBROADCASTSD 8(SI)(R8*2), Y7
	VFMADD231PD  Y4, Y6, Y2
	VFMADD231PD  Y5, Y7, Y10
	VBROADCASTSD (SI)(R11*1), Y6
	VBROADCASTSD 8(SI)(R11*1), Y7
	VFMADD231PD  Y4, Y6, Y3
	VFMADD231PD  Y5, Y7, Y11
	ADDQ         $8, DX
	ADDQ         $16, SI
	SUBQ         $2, CX
	JMP          gd4two

gd4one:
	TESTQ        CX, CX
	JE           gd4done
	MOVLQSX      (DX), AX
	IMULQ        R9, AX
	VMOVUPD      (DI)(AX*1), Y4
	VBROADCASTSD (SI), Y6
	VFMADD231PD  Y4, Y6, Y0
	VBROADCASTSD (SI)(R8*1), Y6
	VFMADD231PD  Y4, Y6, Y1
	VBROADCASTSD (SI)(R8*2), Y6
	VFMADD231PD  Y4, Y6, Y2
	VBROADCASTSD (SI)(R11*1), Y6
	VFMADD231PD  Y4, Y6, Y3

gd4done:
	VADDPD  Y8, Y0, Y0
	VADDPD  Y9, Y1, Y1
	VADDPD  Y10, Y2, Y2
	VADDPD  Y11, Y3, Y3
	VMOVUPD Y0, (R10)
	VMOVUPD Y1, 32(R10)
	VMOVUPD Y2, 64(R10)
	VMOVUPD Y3, 96(R10)
	VZEROUPPER
	RET

// func gdots1AVX(m int, a *float64, idx *int32, x *float64, ldx int, out *float64)
//
// out[c] = Σ_q a[q]·x[idx[q]·ldx + c] for c < 4: gdots4AVX for one column.
TEXT ·gdots1AVX(SB), NOSPLIT, $0-48
	MOVQ    m+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    idx+16(FP), DX
	MOVQ    x+24(FP), DI
	MOVQ    ldx+32(FP), R9
	SHLQ    $3, R9
	MOVQ    out+40(FP), R10
	VXORPD  Y0, Y0, Y0
	VXORPD  Y8, Y8, Y8

gd1two:
	CMPQ         CX, $2
	JL           gd1one
	MOVLQSX      (DX), AX
	IMULQ        R9, AX
	MOVLQSX      4(DX), BX
	IMULQ        R9, BX
	VBROADCASTSD (SI), Y6
	VBROADCASTSD 8(SI), Y7
	VFMADD231PD  (DI)(AX*1), Y6, Y0
	VFMADD231PD  (DI)(BX*1), Y7, Y8
	ADDQ         $8, DX
	ADDQ         $16, SI
	SUBQ         $2, CX
	JMP          gd1two

gd1one:
	TESTQ        CX, CX
	JE           gd1done
	MOVLQSX      (DX), AX
	IMULQ        R9, AX
	VBROADCASTSD (SI), Y6
	VFMADD231PD  (DI)(AX*1), Y6, Y0

gd1done:
	VADDPD  Y8, Y0, Y0
	VMOVUPD Y0, (R10)
	VZEROUPPER
	RET

// func subRowsAVX(m, ns int, l *float64, ldl int, idx *int32, d *float64, x *float64, ld int, kc int)
//
// For q < m, row idx[q] of D (rows ld apart at d) −= Σ_{j<ns} l[j·ldl + q]·X[j]
// (X's rows ld apart at x), over kc columns, a multiple of 4: each row
// loaded once, its columns 32 or 4 at a time in registers, with fused
// multiply-adds over j in order.
TEXT ·subRowsAVX(SB), NOSPLIT, $0-72
	MOVQ m+0(FP), R12
	MOVQ l+16(FP), SI
	MOVQ ldl+24(FP), R8
	SHLQ $3, R8
	MOVQ idx+32(FP), DX
	MOVQ d+40(FP), DI
	MOVQ ld+56(FP), R9
	SHLQ $3, R9

sr_row:
	TESTQ   R12, R12
	JE      sr_done
	MOVLQSX (DX), AX
	IMULQ   R9, AX
	LEAQ    (DI)(AX*1), BX
	MOVQ    x+48(FP), R13
	MOVQ    kc+64(FP), R11

sr_c32:
	CMPQ    R11, $32
	JL      sr_c4
	VMOVUPD (BX), Y0
	VMOVUPD 32(BX), Y1
	VMOVUPD 64(BX), Y2
	VMOVUPD 96(BX), Y3
	VMOVUPD 128(BX), Y4
	VMOVUPD 160(BX), Y5
	VMOVUPD 192(BX), Y6
	VMOVUPD 224(BX), Y7
	MOVQ    SI, AX
	MOVQ    R13, R10
	MOVQ    ns+8(FP), CX

sr_j32:
	VBROADCASTSD (AX), Y8
	VFNMADD231PD (R10), Y8, Y0
	VFNMADD231PD 32(R10), Y8, Y1
	VFNMADD231PD 64(R10), Y8, Y2
	VFNMADD231PD 96(R10), Y8, Y3
	VFNMADD231PD 128(R10), Y8, Y4
	VFNMADD231PD 160(R10), Y8, Y5
	VFNMADD231PD 192(R10), Y8, Y6
	VFNMADD231PD 224(R10), Y8, Y7
	ADDQ         R8, AX
	ADDQ         R9, R10
	DECQ         CX
	JNE          sr_j32
	VMOVUPD      Y0, (BX)
	VMOVUPD      Y1, 32(BX)
	VMOVUPD      Y2, 64(BX)
	VMOVUPD      Y3, 96(BX)
	VMOVUPD      Y4, 128(BX)
	VMOVUPD      Y5, 160(BX)
	VMOVUPD      Y6, 192(BX)
	VMOVUPD      Y7, 224(BX)
	ADDQ         $256, BX
	ADDQ         $256, R13
	SUBQ         $32, R11
	JMP          sr_c32

sr_c4:
	CMPQ    R11, $4
	JL      sr_next
	VMOVUPD (BX), Y0
	MOVQ    SI, AX
	MOVQ    R13, R10
	MOVQ    ns+8(FP), CX

sr_j4:
	VBROADCASTSD (AX), Y8
	VFNMADD231PD (R10), Y8, Y0
	ADDQ         R8, AX
	ADDQ         R9, R10
	DECQ         CX
	JNE          sr_j4
	VMOVUPD      Y0, (BX)
	ADDQ         $32, BX
	ADDQ         $32, R13
	SUBQ         $4, R11
	JMP          sr_c4

sr_next:
	ADDQ $4, DX
	ADDQ $8, SI
	DECQ R12
	JMP  sr_row

sr_done:
	VZEROUPPER
	RET
