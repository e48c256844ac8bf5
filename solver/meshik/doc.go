// Package meshik implements Mesh-Based Inverse Kinematics (R. W. Sumner,
// M. Zwicker, C. Gotsman and J. Popović, SIGGRAPH 2005): posing a mesh by
// moving a few of its vertices while the rest follow the deformations that
// a set of example poses demonstrate.
//
// Each example is described by its feature vector, the deformation
// gradients T_j of its m triangles relative to the reference mesh
// (package gallop/solver/deform, Eq. 1). A feature space maps a weight
// vector w to features M(w), one 3×3 matrix per triangle: the linear span
// of the examples (LinearSpace, Section 3.2) or their nonlinear span, which
// blends rotations through the exponential map (NonlinearSpace, Section
// 3.3, Eq. 6). The solver (Section 4) searches jointly for the vertex
// positions x and the weights w minimising ‖G·x − (M(w) + c)‖ by
// Gauss-Newton iterations, each of which needs M(w) and its Jacobian
// ∂M/∂w from the Space interface.
//
// Feature layout, shared by every Space: features are []mgl64.Mat3 indexed
// by triangle j (column-major 3×3, T[3c + r] = T_j[r][c]); Jacobians are
// []mgl64.Mat3 of length m·NumWeights, triangle-major, with
// dst[j·NumWeights + k] = ∂T_j/∂w_k, so that each triangle's block is
// contiguous for the per-row products Gᵀ·J and Jᵀ·J of the normal
// equations (Eq. 11).
package meshik
