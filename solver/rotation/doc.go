// Package rotation holds Gallop's 3×3 rotation primitives: the signed
// singular value decomposition and the polar decomposition of a 3×3 matrix
// (with Refine, its rotation factor found from a warm start), and the
// exponential and logarithm maps between rotation vectors and SO(3)
// with the right Jacobian of the exponential. Every method that blends,
// fits or differentiates rotations (MeshIK's nonlinear feature space, SSDR,
// rig fitting, dynamic skinning) uses these, and only these.
//
// Conventions:
//
//   - Matrices are mgl64.Mat3, column-major: m[3*col+row], m.At(row, col).
//   - A rotation vector ω = θ·a (unit axis a, angle θ = |ω| in radians)
//     stands for the rotation by θ about a, counter-clockwise looking down
//     the axis (right-hand rule). Log returns θ in [0, π], so every rotation
//     has one rotation vector in the closed ball of radius π; at θ = π
//     (to rounding), where ω and −ω name the same rotation, Log picks the
//     one whose component of largest magnitude is positive.
//   - [ω]× is the skew-symmetric matrix with [ω]×·x = ω × x (Skew).
//   - The right Jacobian J_r(ω) relates a change of the rotation vector to a
//     change of the rotation in the body frame:
//     d/dt Exp(ω(t)) = Exp(ω)·[J_r(ω)·ω̇]×.
//   - "Rotation" means proper rotation, det = +1. Reflections (det = −1)
//     never appear in a rotation factor: SVD keeps U and V proper and puts
//     the sign in the smallest singular value, and Polar moves it into the
//     symmetric factor (Shoemake and Duff 1992, Section 3).
//
// Every function allocates nothing and is safe for concurrent use. None of
// them panics or returns NaN on finite input, including singular and
// rank-deficient matrices; non-finite input gives unspecified output. The
// functions take and return values; ExpTo, ExpAndRightJacobianTo and
// PolarTo write through pointers instead, for hot loops over slices (on
// amd64, 3×3 arrays passed or returned by value travel through the stack,
// which can cost as much as the arithmetic).
//
// References: K. Shoemake and T. Duff, "Matrix animation and polar
// decomposition", Graphics Interface 1992; A. McAdams et al., "Computing
// the singular value decomposition of 3×3 matrices with minimal branching
// and elementary floating point operations", University of Wisconsin
// TR1690, 2011; R. M. Murray, Z. Li and S. S. Sastry, "A Mathematical
// Introduction to Robotic Manipulation", CRC Press 1994 (Rodrigues'
// formula); G. S. Chirikjian, "Stochastic Models, Information Theory, and
// Lie Groups", vol. 2, Birkhäuser 2012, Section 10.2 (the Jacobians of
// SO(3)); N. J. Higham, "Functions of Matrices: Theory and Computation",
// SIAM 2008, Chapter 8 (Newton's iteration for the polar decomposition).
package rotation
