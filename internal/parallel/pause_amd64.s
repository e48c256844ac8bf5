//go:build !purego

#include "textflag.h"

// func pause(n int)
//
// n PAUSE instructions: a spin-wait hint that frees the core's execution
// resources for a sibling hardware thread while a worker polls.
TEXT ·pause(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	TESTQ CX, CX
	JLE  done

loop:
	PAUSE
	DECQ CX
	JNZ  loop

done:
	RET
