// Package deform computes the deformation gradients of a triangle mesh
// relative to a reference pose, and exposes them as the sparse linear
// operator G that MeshIK, deformation transfer and other gradient-domain
// methods invert (Sumner and Popović, "Deformation transfer for triangle
// meshes", SIGGRAPH 2004, Section 3; Sumner et al., "Mesh-based inverse
// kinematics", SIGGRAPH 2005, Section 3.1, Eqs. 1–3).
//
// Fourth vertex. Three vertices do not determine an affine map of space, so
// each triangle (v₁, v₂, v₃) gets a fourth vertex off its plane,
//
//	v₄ = v₁ + (e₁ × e₂)/√|e₁ × e₂|,  e₁ = v₂ − v₁, e₂ = v₃ − v₁,
//
// at a distance √(2·area) along the unit normal, so that the map scales the
// normal direction in proportion to the edges. The same construction gives
// the fourth vertex of any pose (FourthVertex); a pose whose triangle has
// collapsed (e₁ × e₂ = 0) gets v₄ = v₁, the limit of the formula, so that
// nothing is ever NaN.
//
// Deformation gradient. With V = [v₁ − v₄, v₂ − v₄, v₃ − v₄] (columns) in the
// reference pose and V̄ the same in a pose, the deformation gradient of
// triangle j is T_j = V̄·V⁻¹ (Eq. 1): the linear part of the affine map
// taking the reference tetrahedron onto the posed one. The reference pose
// has T_j = I, a rigid motion x ↦ Q·x + t has T_j = Q, and T_j does not see
// translations.
//
// Operator G (Eq. 2). T_j is linear in the posed vertices, so the 9m
// numbers of all T_j are G·x for one sparse matrix that acts on each
// coordinate separately: per coordinate r ∈ {x, y, z}, G is 3m × (n + m),
// the same for all three coordinates. Its unknowns are the n mesh vertices
// (index i < n) followed by the fourth vertex of each triangle j (index
// n + j); its row 3j + c gives column c of T_j, that is T_j[r][c] on the
// coordinate-r copy:
//
//	T_j[r][c] = Σ_{k=1..3} V⁻¹[k][c]·(v̄_k[r] − v̄₄[r]),
//
// four entries per row: V⁻¹[k][c] at the triangle's vertices v₁, v₂, v₃ and
// −(V⁻¹[1][c] + V⁻¹[2][c] + V⁻¹[3][c]) at its fourth vertex n + j. (Row
// returns them.) Every row sums to zero, so G annihilates translations;
// for a connected mesh that is its whole null space, and fixing one
// vertex (Eq. 3) makes GᵀG positive definite. A vertex that no triangle
// references has an all-zero column, which a solver must fix or drop.
//
// All positions and matrices are float64 mgl64 values; matrices are
// column-major (T[3c + r] = T_j[r][c], T.At(r, c)).
package deform

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/parallel"
)

// DegenerateTol is the relative area below which New rejects a reference
// triangle: 2·area ≤ DegenerateTol·L², L its longest edge, i.e. a height
// below 1e-12 of its longest edge. Collinear and coincident vertices land
// there (rounding leaves 2·area near 1e-16·L²), while the slivers of real
// scanned meshes stay well above it; a triangle this thin would make V
// too ill-conditioned to invert meaningfully.
const DegenerateTol = 1e-12

// parallelMin is the smallest number of triangles Features splits across
// workers.
const parallelMin = 4096

// DegenerateError reports a triangle of the reference mesh with no
// deformation gradient: zero (or relatively negligible, see DegenerateTol)
// or non-finite area. Indices are 0-based, as in assets.Mesh.
type DegenerateError struct {
	Triangle int
	Vertices [3]int
	Area     float64 // the area as computed: 0, tiny, or ±Inf/NaN
	Longest  float64 // the length of the longest edge
}

// Error names the triangle and its vertices, for example "triangle 17
// (vertices 3, 9, 12) has zero area".
func (e *DegenerateError) Error() string {
	what := "zero area"
	switch {
	case math.IsInf(e.Area, 0) || math.IsNaN(e.Area) || math.IsInf(e.Longest, 0):
		what = "non-finite area"
	case e.Area != 0:
		what = fmt.Sprintf("zero area (%.3g, negligible beside its longest edge %.3g)", e.Area, e.Longest)
	}
	return fmt.Sprintf("triangle %d (vertices %d, %d, %d) has %s", e.Triangle, e.Vertices[0], e.Vertices[1], e.Vertices[2], what)
}

// Gradients is the deformation-gradient operator G of a reference mesh,
// stored as one inverse reference edge matrix per triangle (see
// InverseEdges and Row). It is immutable after New and safe for
// concurrent use.
type Gradients struct {
	n         int
	triangles [][3]int
	// einv[j] = E⁻¹ for the reference edge matrix E = [e₁, e₂, v₄ − v₁]
	// of triangle j: T_j = Ē·E⁻¹ is the same map as V̄·V⁻¹ (V = E·K for a
	// constant K), cheaper to apply and free of the v₄ subtractions.
	einv []mgl64.Mat3
}

// New precomputes the deformation gradients of the reference mesh with
// #V positions and #F triangles (0-based vertex indices). It returns an
// error naming the first bad element: a non-finite position, a vertex index
// out of range, or a degenerate triangle (*DegenerateError). The triangle
// list is copied.
func New(positions []mgl64.Vec3, triangles [][3]int) (*Gradients, error) {
	n := len(positions)
	for i, p := range positions {
		if !finite.Vec3(p) {
			return nil, fmt.Errorf("vertex %d has a non-finite position %v", i, p)
		}
	}
	g := &Gradients{
		n:         n,
		triangles: append([][3]int(nil), triangles...),
		einv:      make([]mgl64.Mat3, len(triangles)),
	}
	for j, t := range triangles {
		for _, v := range t {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("triangle %d (vertices %d, %d, %d): vertex index %d out of range [0, %d)", j, t[0], t[1], t[2], v, n)
			}
		}
		p1, p2, p3 := positions[t[0]], positions[t[1]], positions[t[2]]
		e1, e2 := p2.Sub(p1), p3.Sub(p1)
		nrm := e1.Cross(e2)
		twice := norm(nrm) // 2·area
		longest := math.Max(norm(e1), math.Max(norm(e2), norm(p3.Sub(p2))))
		if !(twice > DegenerateTol*longest*longest) || math.IsInf(twice, 0) || math.IsInf(longest, 0) {
			return nil, &DegenerateError{Triangle: j, Vertices: t, Area: twice / 2, Longest: longest}
		}
		inv, ok := inverse(mgl64.Mat3FromCols(e1, e2, offset(nrm)))
		if !ok {
			return nil, &DegenerateError{Triangle: j, Vertices: t, Area: twice / 2, Longest: longest}
		}
		g.einv[j] = inv
	}
	return g, nil
}

// offset returns v₄ − v₁ = nrm/√|nrm|, and 0 for nrm = 0.
func offset(nrm mgl64.Vec3) mgl64.Vec3 {
	l := norm(nrm)
	if l == 0 {
		return mgl64.Vec3{}
	}
	return nrm.Mul(1 / math.Sqrt(l))
}

// norm returns |v| without underflow or overflow in the squares.
func norm(v mgl64.Vec3) float64 {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if l != 0 && l <= 1e150 || l != l {
		return l
	}
	big := math.Max(math.Abs(v[0]), math.Max(math.Abs(v[1]), math.Abs(v[2])))
	if big == 0 || math.IsInf(big, 0) {
		return big
	}
	x, y, z := v[0]/big, v[1]/big, v[2]/big
	return big * math.Sqrt(x*x+y*y+z*z)
}

// FourthVertex returns the fourth vertex v₄ = v₁ + (e₁ × e₂)/√|e₁ × e₂| of
// the triangle (v₁, v₂, v₃), with e₁ = v₂ − v₁, e₂ = v₃ − v₁; v₁ itself
// when the triangle has collapsed.
func FourthVertex(v1, v2, v3 mgl64.Vec3) mgl64.Vec3 {
	return v1.Add(offset(v2.Sub(v1).Cross(v3.Sub(v1))))
}

// NumVertices returns n, the number of mesh vertices.
func (g *Gradients) NumVertices() int { return g.n }

// NumTriangles returns m, the number of triangles.
func (g *Gradients) NumTriangles() int { return len(g.triangles) }

// NumUnknowns returns n + m, the number of unknowns per coordinate: the
// mesh vertices, then one fourth vertex per triangle.
func (g *Gradients) NumUnknowns() int { return g.n + len(g.triangles) }

// NumRows returns 3m, the number of rows of G per coordinate.
func (g *Gradients) NumRows() int { return 3 * len(g.triangles) }

// Triangle returns the vertex indices of triangle j.
func (g *Gradients) Triangle(j int) [3]int { return g.triangles[j] }

// InverseEdges returns V⁻¹ of triangle j in the reference pose, for
// V = [v₁ − v₄, v₂ − v₄, v₃ − v₄]. (It is derived from the stored
// E⁻¹, E = [v₂ − v₁, v₃ − v₁, v₄ − v₁]: V⁻¹ has rows −(sum of the rows of
// E⁻¹), then E⁻¹'s first and second rows.)
func (g *Gradients) InverseEdges(j int) mgl64.Mat3 {
	w := &g.einv[j]
	var v mgl64.Mat3
	for c := 0; c < 3; c++ {
		a, b, d := w[3*c], w[3*c+1], w[3*c+2]
		v[3*c], v[3*c+1], v[3*c+2] = -(a + b + d), a, b
	}
	return v
}

// Row returns row 3j + c of G (per coordinate): the unknowns it touches,
// cols = (v₁, v₂, v₃, n + j), and their coefficients, coef = (V⁻¹[0][c],
// V⁻¹[1][c], V⁻¹[2][c], −their sum) with V⁻¹ = InverseEdges(j). The row
// applied to coordinate r of the unknowns gives T_j[r][c]. The four
// columns are distinct and the coefficients sum to zero.
func (g *Gradients) Row(j, c int) (cols [4]int, coef [4]float64) {
	t := g.triangles[j]
	w := &g.einv[j]
	a, b, d := w[3*c], w[3*c+1], w[3*c+2] // at v₂, v₃, v₄
	return [4]int{t[0], t[1], t[2], g.n + j}, [4]float64{-(a + b + d), a, b, d}
}

// FourthVertices writes into dst (length m) the fourth vertex of every
// triangle of the pose with the given positions (length n); see
// FourthVertex.
func (g *Gradients) FourthVertices(dst, positions []mgl64.Vec3) {
	g.checkPositions(positions)
	if len(dst) != len(g.triangles) {
		panic(fmt.Sprintf("deform: FourthVertices: len(dst) = %d, want %d triangles", len(dst), len(g.triangles)))
	}
	for j, t := range g.triangles {
		dst[j] = FourthVertex(positions[t[0]], positions[t[1]], positions[t[2]])
	}
}

// Unknowns returns the full unknown vector of a pose, its n positions
// followed by its m fourth vertices, in dst if it has the capacity (else
// in a new slice). G applied to it (Apply) gives the pose's Features.
func (g *Gradients) Unknowns(dst, positions []mgl64.Vec3) []mgl64.Vec3 {
	g.checkPositions(positions)
	k := g.NumUnknowns()
	if cap(dst) < k {
		dst = make([]mgl64.Vec3, k)
	}
	dst = dst[:k]
	copy(dst, positions)
	g.FourthVertices(dst[g.n:], positions)
	return dst
}

// Features writes into dst (length m) the deformation gradient T_j of
// every triangle of the pose with the given positions (length n), relative
// to the reference pose. Large meshes are split across workers (package
// parallel). It allocates nothing per triangle.
func (g *Gradients) Features(dst []mgl64.Mat3, positions []mgl64.Vec3) {
	g.checkPositions(positions)
	if len(dst) != len(g.triangles) {
		panic(fmt.Sprintf("deform: Features: len(dst) = %d, want %d triangles", len(dst), len(g.triangles)))
	}
	if len(g.triangles) < parallelMin {
		g.features(dst, positions, 0, len(g.triangles))
		return
	}
	parallel.Chunks(len(g.triangles), 0, func(lo, hi int) {
		g.features(dst[lo:hi], positions, lo, hi)
	})
}

// FeaturesRange writes into dst (length hi − lo) the deformation gradients
// of triangles [lo, hi) of the pose with the given positions (length n):
// dst[j − lo] = T_j. It runs on the calling goroutine, for callers that
// stream over the triangles.
func (g *Gradients) FeaturesRange(dst []mgl64.Mat3, positions []mgl64.Vec3, lo, hi int) {
	g.checkPositions(positions)
	if lo < 0 || hi > len(g.triangles) || lo > hi || len(dst) != hi-lo {
		panic(fmt.Sprintf("deform: FeaturesRange: [%d, %d) of %d triangles into %d", lo, hi, len(g.triangles), len(dst)))
	}
	g.features(dst, positions, lo, hi)
}

// features writes T_j of triangles [lo, hi) into dst[j − lo].
func (g *Gradients) features(dst []mgl64.Mat3, positions []mgl64.Vec3, lo, hi int) {
	tris, einv := g.triangles[lo:hi], g.einv[lo:hi]
	for j, t := range tris {
		// Scalars rather than Vec3 values: arrays passed by value go through
		// the stack, which costs more than this arithmetic.
		p1, p2, p3 := &positions[t[0]], &positions[t[1]], &positions[t[2]]
		ax, ay, az := p2[0]-p1[0], p2[1]-p1[1], p2[2]-p1[2] // e₁
		bx, by, bz := p3[0]-p1[0], p3[1]-p1[1], p3[2]-p1[2] // e₂
		nx, ny, nz := ay*bz-az*by, az*bx-ax*bz, ax*by-ay*bx
		l := math.Sqrt(nx*nx + ny*ny + nz*nz)
		if l == 0 || l > 1e150 { // collapsed, or squares out of range: the careful path
			o := offset(mgl64.Vec3{nx, ny, nz})
			nx, ny, nz = o[0], o[1], o[2]
		} else {
			k := 1 / math.Sqrt(l)
			nx, ny, nz = nx*k, ny*k, nz*k
		}
		w, d := &einv[j], &dst[j]
		for c := 0; c < 3; c++ {
			x, y, u := w[3*c], w[3*c+1], w[3*c+2]
			d[3*c] = ax*x + bx*y + nx*u
			d[3*c+1] = ay*x + by*y + ny*u
			d[3*c+2] = az*x + bz*y + nz*u
		}
	}
}

// mulCols returns [a, b, c]·w for the matrix with columns a, b, c.
func mulCols(a, b, c mgl64.Vec3, w *mgl64.Mat3) mgl64.Mat3 {
	var z mgl64.Mat3
	for k := 0; k < 3; k++ {
		x, y, u := w[3*k], w[3*k+1], w[3*k+2]
		z[3*k] = a[0]*x + b[0]*y + c[0]*u
		z[3*k+1] = a[1]*x + b[1]*y + c[1]*u
		z[3*k+2] = a[2]*x + b[2]*y + c[2]*u
	}
	return z
}

// Apply computes f = G·x: dst[j] (length m) receives T_j as the rows of G
// give it from the unknowns x (length n + m, positions then fourth
// vertices; see Unknowns). For x = Unknowns(pose) it equals Features(pose)
// up to rounding; for other x (a solver's iterate, whose fourth vertices
// are free) it is what G·x means.
func (g *Gradients) Apply(dst []mgl64.Mat3, x []mgl64.Vec3) {
	if len(x) != g.NumUnknowns() {
		panic(fmt.Sprintf("deform: Apply: len(x) = %d, want %d unknowns", len(x), g.NumUnknowns()))
	}
	if len(dst) != len(g.triangles) {
		panic(fmt.Sprintf("deform: Apply: len(dst) = %d, want %d triangles", len(dst), len(g.triangles)))
	}
	for j, t := range g.triangles {
		x1 := x[t[0]]
		dst[j] = mulCols(x[t[1]].Sub(x1), x[t[2]].Sub(x1), x[g.n+j].Sub(x1), &g.einv[j])
	}
}

// ApplyTranspose computes Gᵀ·f: dst (length n + m) receives, per
// coordinate, the sum over rows of G of the row's coefficients times the
// row's feature value f[j][r][c] (for the right-hand side Gᵀ(M(w) + c) of
// the normal equations). Sequential: it scatters into shared vertices.
func (g *Gradients) ApplyTranspose(dst []mgl64.Vec3, f []mgl64.Mat3) {
	if len(dst) != g.NumUnknowns() {
		panic(fmt.Sprintf("deform: ApplyTranspose: len(dst) = %d, want %d unknowns", len(dst), g.NumUnknowns()))
	}
	if len(f) != len(g.triangles) {
		panic(fmt.Sprintf("deform: ApplyTranspose: len(f) = %d, want %d triangles", len(f), len(g.triangles)))
	}
	clear(dst)
	for j, t := range g.triangles {
		// The coefficient of unknown u in row 3j + c times column c of f_j,
		// summed over c: column k of f_j·E⁻ᵀ for v₂, v₃, v₄ (k = 0, 1, 2),
		// minus their sum for v₁.
		fj, w := &f[j], &g.einv[j]
		var col [3]mgl64.Vec3
		for k := 0; k < 3; k++ {
			for c := 0; c < 3; c++ {
				a := w[3*c+k]
				col[k][0] += a * fj[3*c]
				col[k][1] += a * fj[3*c+1]
				col[k][2] += a * fj[3*c+2]
			}
		}
		dst[t[1]] = dst[t[1]].Add(col[0])
		dst[t[2]] = dst[t[2]].Add(col[1])
		dst[g.n+j] = dst[g.n+j].Add(col[2])
		dst[t[0]] = dst[t[0]].Sub(col[0].Add(col[1]).Add(col[2]))
	}
}

func (g *Gradients) checkPositions(positions []mgl64.Vec3) {
	if len(positions) != g.n {
		panic(fmt.Sprintf("deform: %d positions, want %d vertices", len(positions), g.n))
	}
}

// inverse returns v⁻¹ by cofactors, after scaling v by a power of two
// (exactly) so that its determinant neither underflows nor overflows at
// any mesh scale; ok is false if v is singular or the result not finite.
func inverse(v mgl64.Mat3) (inv mgl64.Mat3, ok bool) {
	big := 0.0
	for _, x := range v {
		big = math.Max(big, math.Abs(x))
	}
	if !(big > 0) || math.IsInf(big, 0) {
		return inv, false
	}
	_, e := math.Frexp(big)
	for i := range v {
		v[i] = math.Ldexp(v[i], -e)
	}
	cof := mgl64.Mat3{
		v[4]*v[8] - v[5]*v[7], v[2]*v[7] - v[1]*v[8], v[1]*v[5] - v[2]*v[4],
		v[5]*v[6] - v[3]*v[8], v[0]*v[8] - v[2]*v[6], v[2]*v[3] - v[0]*v[5],
		v[3]*v[7] - v[4]*v[6], v[1]*v[6] - v[0]*v[7], v[0]*v[4] - v[1]*v[3],
	}
	det := v[0]*cof[0] + v[3]*cof[1] + v[6]*cof[2]
	if det == 0 {
		return inv, false
	}
	for i := range inv {
		inv[i] = math.Ldexp(cof[i]/det, -e)
		if math.IsNaN(inv[i]) || math.IsInf(inv[i], 0) {
			return inv, false
		}
	}
	return inv, true
}
