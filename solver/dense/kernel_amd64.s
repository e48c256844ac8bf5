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
