// Package sparse solves sparse symmetric positive definite systems A·x = b
// by supernodal multifrontal Cholesky factorization, P·A·Pᵀ = L·Lᵀ.
//
// It is Gallop's one sparse Cholesky (ARCHITECTURE.md): Mesh-Based IK
// (Sumner et al. 2005, §4) factors GᵀG once per handle set and solves with
// it in every Gauss-Newton iteration. The work splits the same way here:
//
//	sym, err := sparse.Analyze(a, nil) // ordering and symbolic factorization: once per pattern
//	fac, err := sym.Factor(a)          // numeric factorization
//	err = fac.Refactor(a2)             // same pattern, new values (a new handle set)
//	fac.SolveLower(y, b)               // Y = L⁻¹·P·B, so Bᵀ·A⁻¹·B = Yᵀ·Y
//	fac.Solve(x, b)                    // X = A⁻¹·B
//
// Matrices are CSC (compressed sparse column, sorted row indices); build
// them with Triplet, or as AᵀA with MulTransA. Analyze and Factor read the
// lower triangle only, so a full symmetric matrix or its lower triangle
// may be passed. Dirichlet conditions are best imposed by values — zero
// the row and column of a fixed unknown and put 1 on its diagonal — which
// keeps the pattern, so one Analyze serves every handle set.
//
// # Method
//
// Ordering: the approximate minimum degree ordering of Amestoy, Davis and
// Duff (SIMAX 1996) with element absorption, aggressive absorption, mass
// elimination, supervariables and dense-row removal, after the simplicial
// nodes (whose neighbours form a clique, such as the fourth vertices of
// MeshIK) are ordered first, which costs no fill. Symbolic: Liu's
// elimination tree, its postorder, the column counts of Gilbert, Ng and
// Peyton, fundamental supernodes and relaxed amalgamation (Ashcraft and
// Grimes). Numeric: the multifrontal method (Duff and Reid; Liu 1992) on
// dense supernodal blocks, with register-blocked kernels (AVX2/FMA
// assembly on amd64 where the CPU has it, portable Go elsewhere);
// independent subtrees of the elimination tree run in parallel on
// gallop/solver/parallel, and the dense kernels of the supernodes at the
// top of the tree are split across cores. Solves handle all right-hand
// sides of a supernode at once, with the same subtree parallelism: a
// supernode's diagonal block in panels of 8 columns, the rest of the block
// updated by the gemm kernel; in a forward solve of 8 or more right-hand
// sides a supernode of at most 16 columns updates the rows below it in
// place, each read and written once (dense.SubRows), a wider one through
// the gemm kernel on a gathered copy; a backward solve of four right-hand
// sides dots each column of L with the rows it pairs with, in registers
// (dense.GatherDots4).
//
// References: T. A. Davis, Direct Methods for Sparse Linear Systems, SIAM
// 2006; P. R. Amestoy, T. A. Davis, I. S. Duff, An approximate minimum
// degree ordering algorithm, SIAM J. Matrix Anal. Appl. 17(4), 1996;
// J. W. H. Liu, The role of elimination trees in sparse factorization,
// SIAM J. Matrix Anal. Appl. 11(1), 1990; J. R. Gilbert, E. G. Ng, B. W.
// Peyton, An efficient algorithm to compute row and column counts for
// sparse Cholesky factorization, SIMAX 15(4), 1994; C. Ashcraft, R.
// Grimes, The influence of relaxed supernode partitions on the
// multifrontal method, ACM TOMS 15(4), 1989; E. Rothberg, A. Gupta,
// Efficient sparse matrix factorization on high-performance workstations,
// Supercomputing 1991.
//
// # Errors and determinism
//
// A matrix that is not numerically positive definite gives a
// *NotPositiveDefiniteError naming the column; wrong shapes and patterns
// are programming errors and panic with a "sparse:" message. The parallel
// schedule is planned from the pattern alone, and every kernel sums in an
// order fixed by the structure, so for the same input the factor and the
// solutions are bitwise identical from run to run, whatever the goroutine
// timing and the number of cores (the arithmetic differs only between CPUs
// with and without FMA).
package sparse
