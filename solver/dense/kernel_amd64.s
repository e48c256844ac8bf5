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

// func combine9AVX(dst *float64, w *float64, f *float64, n int)
//
// dst[0:9] = Σ_{k<n} w[k]·f[9k : 9k+9], even and odd k summed apart with
// fused multiply-adds and added at the end.
TEXT ·combine9AVX(SB), NOSPLIT, $0-32
	MOVQ   dst+0(FP), DI
	MOVQ   w+8(FP), SI
	MOVQ   f+16(FP), DX
	MOVQ   n+24(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6

comb2:
	CMPQ         CX, $2
	JL           comb1
	VBROADCASTSD (SI), Y3
	VFMADD231PD  (DX), Y3, Y0
	VFMADD231PD  32(DX), Y3, Y1
	VFMADD231SD  64(DX), X3, X2
	VBROADCASTSD 8(SI), Y7
	VFMADD231PD  72(DX), Y7, Y4
	VFMADD231PD  104(DX), Y7, Y5
	VFMADD231SD  136(DX), X7, X6
	ADDQ         $16, SI
	ADDQ         $144, DX
	SUBQ         $2, CX
	JMP          comb2

comb1:
	TESTQ        CX, CX
	JZ           combdone
	VBROADCASTSD (SI), Y3
	VFMADD231PD  (DX), Y3, Y0
	VFMADD231PD  32(DX), Y3, Y1
	VFMADD231SD  64(DX), X3, X2

combdone:
	VADDPD     Y4, Y0, Y0
	VADDPD     Y5, Y1, Y1
	VADDSD     X6, X2, X2
	VMOVUPD    Y0, (DI)
	VMOVUPD    Y1, 32(DI)
	VMOVSD     X2, 64(DI)
	VZEROUPPER
	RET

// func addDots9AVX(acc *float64, f *float64, p *float64, n int)
//
// acc[k] += f[9k : 9k+9]·p[0:9] for k < n, n a multiple of 4: four rows at
// a time, their products summed across lanes into one vector of four.
TEXT ·addDots9AVX(SB), NOSPLIT, $0-32
	MOVQ         acc+0(FP), DI
	MOVQ         f+8(FP), DX
	MOVQ         p+16(FP), SI
	MOVQ         n+24(FP), CX
	VMOVUPD      (SI), Y8
	VMOVUPD      32(SI), Y9
	VBROADCASTSD 64(SI), Y10

dots4:
	CMPQ        CX, $4
	JL          dotsdone
	VMULPD      (DX), Y8, Y0
	VFMADD231PD 32(DX), Y9, Y0
	VMULPD      72(DX), Y8, Y1
	VFMADD231PD 104(DX), Y9, Y1
	VMULPD      144(DX), Y8, Y2
	VFMADD231PD 176(DX), Y9, Y2
	VMULPD      216(DX), Y8, Y3
	VFMADD231PD 248(DX), Y9, Y3
	VHADDPD     Y1, Y0, Y4
	VHADDPD     Y3, Y2, Y5
	VPERM2F128  $0x21, Y5, Y4, Y6
	VBLENDPD    $0x0C, Y5, Y4, Y7
	VADDPD      Y6, Y7, Y7
	VMOVSD      64(DX), X11
	VMOVHPD     136(DX), X11, X11
	VMOVSD      208(DX), X12
	VMOVHPD     280(DX), X12, X12
	VINSERTF128 $1, X12, Y11, Y11
	VFMADD231PD Y11, Y10, Y7
	VADDPD      (DI), Y7, Y7
	VMOVUPD     Y7, (DI)
	ADDQ        $288, DX
	ADDQ        $32, DI
	SUBQ        $4, CX
	JMP         dots4

dotsdone:
	VZEROUPPER
	RET
