//go:build cholmod

// Package cholmodref wraps CHOLMOD (SuiteSparse) through cgo, as a reference
// for the comparison benchmarks of gallop/solver/sparse
// (cholmod_bench_test.go): build with -tags cholmod after installing
// libsuitesparse-dev. Nothing else uses it, and normal builds leave it out.
package cholmodref

/*
#cgo CFLAGS: -I/usr/include/suitesparse
#cgo LDFLAGS: -lcholmod
#include <cholmod.h>
#include <string.h>
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Ref holds CHOLMOD's common block, a matrix and its factor.
type Ref struct {
	cm C.cholmod_common
	a  *C.cholmod_sparse
	l  *C.cholmod_factor
}

// New copies the lower triangle of the symmetric n×n matrix given in CSC
// form (sorted row indices).
func New(n int, colPtr, rowIdx []int, val []float64, supernodal bool) *Ref {
	r := &Ref{}
	C.cholmod_start(&r.cm)
	if supernodal {
		r.cm.supernodal = C.CHOLMOD_SUPERNODAL
	}
	nnz := 0
	for j := 0; j < n; j++ {
		for k := colPtr[j]; k < colPtr[j+1]; k++ {
			if rowIdx[k] >= j {
				nnz++
			}
		}
	}
	r.a = C.cholmod_allocate_sparse(C.size_t(n), C.size_t(n), C.size_t(nnz), 1, 1, -1, C.CHOLMOD_REAL, &r.cm)
	p := unsafe.Slice((*C.int)(r.a.p), n+1)
	i := unsafe.Slice((*C.int)(r.a.i), nnz)
	x := unsafe.Slice((*C.double)(r.a.x), nnz)
	q := 0
	for j := 0; j < n; j++ {
		p[j] = C.int(q)
		for k := colPtr[j]; k < colPtr[j+1]; k++ {
			if rowIdx[k] >= j {
				i[q] = C.int(rowIdx[k])
				x[q] = C.double(val[k])
				q++
			}
		}
	}
	p[n] = C.int(q)
	return r
}

// Analyze runs cholmod_analyze.
func (r *Ref) Analyze() {
	if r.l != nil {
		C.cholmod_free_factor(&r.l, &r.cm)
	}
	r.l = C.cholmod_analyze(r.a, &r.cm)
}

// Factorize runs cholmod_factorize.
func (r *Ref) Factorize() error {
	C.cholmod_factorize(r.a, r.l, &r.cm)
	if r.cm.status != C.CHOLMOD_OK {
		return errors.New("cholmod: factorize failed")
	}
	return nil
}

// LNZ returns the number of nonzeros of L as CHOLMOD counts them.
func (r *Ref) LNZ() float64 { return float64(r.cm.lnz) }

// Solve solves A·X = B for k right-hand sides (column-major n×k in b).
func (r *Ref) Solve(b []float64, k int) []float64 {
	n := int(r.a.nrow)
	bd := C.cholmod_allocate_dense(C.size_t(n), C.size_t(k), C.size_t(n), C.CHOLMOD_REAL, &r.cm)
	copy(unsafe.Slice((*float64)(bd.x), n*k), b)
	xd := C.cholmod_solve(C.CHOLMOD_A, r.l, bd, &r.cm)
	out := make([]float64, n*k)
	copy(out, unsafe.Slice((*float64)(xd.x), n*k))
	C.cholmod_free_dense(&bd, &r.cm)
	C.cholmod_free_dense(&xd, &r.cm)
	return out
}

// Free releases CHOLMOD's memory.
func (r *Ref) Free() {
	if r.l != nil {
		C.cholmod_free_factor(&r.l, &r.cm)
	}
	C.cholmod_free_sparse(&r.a, &r.cm)
	C.cholmod_finish(&r.cm)
}
