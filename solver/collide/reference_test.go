package collide

import (
	"math/big"

	"github.com/go-gl/mathgl/mgl64"
)

// refIntersect is an independent reference for TrianglesIntersect, in
// exact arithmetic and without orientation predicates: closed triangles a
// and b (degenerate ones included) share a point iff some λ, μ ≥ 0 with
// Σλ = Σμ = 1 have Σ λᵢaᵢ = Σ μⱼbⱼ, that is iff the vector
// r = (1, 1, 0, 0, 0) lies in the cone of the six columns (1, 0, aᵢ) and
// (0, 1, −bⱼ). By Carathéodory's theorem for cones it does iff it is a
// nonnegative combination of linearly independent columns, so the
// reference solves the system on every set of at most five columns by
// Gaussian elimination and looks for a nonnegative solution. The
// coordinates, exact rationals with power-of-two denominators, are
// multiplied by their common denominator (which leaves the solutions
// unchanged, the last three entries of r being 0), so the elimination runs
// in integers (fraction-free, Bareiss) and only the back substitution in
// rationals.
func refIntersect(a, b [3]mgl64.Vec3) bool {
	var coords [18]*big.Rat
	den := big.NewInt(1)
	for i := range 3 {
		for k := range 3 {
			coords[3*i+k] = new(big.Rat).SetFloat64(a[i][k])
			coords[9+3*i+k] = new(big.Rat).SetFloat64(-b[i][k])
		}
	}
	for _, c := range coords {
		if c.Denom().Cmp(den) > 0 {
			den.Set(c.Denom()) // powers of two: the largest is their multiple
		}
	}
	var cols [6][5]*big.Int
	for c := range 6 {
		cols[c][0], cols[c][1] = big.NewInt(0), big.NewInt(0)
		cols[c][c/3].SetInt64(1)
		for k := range 3 {
			x := new(big.Int).Mul(coords[3*c+k].Num(), den)
			cols[c][2+k] = x.Quo(x, coords[3*c+k].Denom())
		}
	}
	for set := 1; set < 1<<6-1; set++ {
		var sel []int
		for c := range 6 {
			if set&(1<<c) != 0 {
				sel = append(sel, c)
			}
		}
		if nonnegativeSolution(&cols, sel) {
			return true
		}
	}
	return false
}

// nonnegativeSolution reports whether the columns sel of cols are linearly
// independent and r = (1, 1, 0, 0, 0) is their combination with
// nonnegative coefficients.
func nonnegativeSolution(cols *[6][5]*big.Int, sel []int) bool {
	k := len(sel)
	// Augmented 5 × (k+1) matrix [A | r].
	var m [5][6]big.Int
	for row := range 5 {
		for j, c := range sel {
			m[row][j].Set(cols[c][row])
		}
		if row < 2 {
			m[row][k].SetInt64(1)
		}
	}
	// Fraction-free elimination; every column must get a pivot.
	prev := big.NewInt(1)
	var t big.Int
	for col := range k {
		p := col
		for p < 5 && m[p][col].Sign() == 0 {
			p++
		}
		if p == 5 {
			return false // dependent columns
		}
		m[col], m[p] = m[p], m[col]
		for row := col + 1; row < 5; row++ {
			for j := col + 1; j <= k; j++ {
				m[row][j].Mul(&m[row][j], &m[col][col])
				m[row][j].Sub(&m[row][j], t.Mul(&m[row][col], &m[col][j]))
				m[row][j].Quo(&m[row][j], prev)
			}
			m[row][col].SetInt64(0)
		}
		prev = &m[col][col]
	}
	for row := k; row < 5; row++ {
		if m[row][k].Sign() != 0 {
			return false // inconsistent
		}
	}
	// Back substitution.
	x := make([]*big.Rat, k)
	for col := k - 1; col >= 0; col-- {
		s := new(big.Rat).SetInt(&m[col][k])
		for j := col + 1; j < k; j++ {
			s.Sub(s, new(big.Rat).Mul(new(big.Rat).SetInt(&m[col][j]), x[j]))
		}
		x[col] = s.Quo(s, new(big.Rat).SetInt(&m[col][col]))
		if x[col].Sign() < 0 {
			return false
		}
	}
	return true
}
