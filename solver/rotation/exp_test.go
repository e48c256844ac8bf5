package rotation

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// frob returns the Frobenius norm of m, without overflow or underflow.
func frob(m mgl64.Mat3) float64 {
	big := 0.0
	for _, x := range m {
		big = math.Max(big, math.Abs(x))
	}
	if big == 0 || math.IsInf(big, 0) {
		return big
	}
	s := 0.0
	for _, x := range m {
		s += (x / big) * (x / big)
	}
	return big * math.Sqrt(s)
}

func hasNaN(m mgl64.Mat3) bool {
	for _, x := range m {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// randomAxis returns a uniformly distributed unit vector.
func randomAxis(rng *rand.Rand) mgl64.Vec3 {
	for {
		v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if l := v.Len(); l > 1e-3 {
			return v.Mul(1 / l)
		}
	}
}

// testAngles are rotation angles in [0, π], including both ends and their
// neighbourhoods, where Log changes method or loses accuracy if done naively.
var testAngles = []float64{
	0, 1e-300, 1e-12, 1e-8, 1e-5, 0.01, 0.049, 0.05, 0.051, 0.3, 1, 1.5,
	math.Pi / 2, 1.6, 2, 3, math.Pi - 1e-3, math.Pi - 1e-6, math.Pi - 1e-9,
	math.Pi - 1e-12, math.Pi,
}

// rotationAbout is the textbook rotation by theta about a unit axis,
// (1 − cos)·a·aᵀ + cos·I + sin·[a]×, written out independently of Exp.
func rotationAbout(a mgl64.Vec3, theta float64) mgl64.Mat3 {
	s, c := math.Sincos(theta)
	x, y, z := a[0], a[1], a[2]
	return mgl64.Mat3FromRows(
		mgl64.Vec3{c + x*x*(1-c), x*y*(1-c) - z*s, x*z*(1-c) + y*s},
		mgl64.Vec3{y*x*(1-c) + z*s, c + y*y*(1-c), y*z*(1-c) - x*s},
		mgl64.Vec3{z*x*(1-c) - y*s, z*y*(1-c) + x*s, c + z*z*(1-c)},
	)
}

func TestSkewIsCrossProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		a, b := randomAxis(rng).Mul(3), randomAxis(rng).Mul(0.5)
		if d := Skew(a).Mul3x1(b).Sub(a.Cross(b)).Len(); d > 1e-15 {
			t.Fatalf("Skew(%v)·%v differs from the cross product by %g", a, b, d)
		}
		if s := Skew(a); s != s.Transpose().Mul(-1) {
			t.Fatalf("Skew(%v) is not skew-symmetric", a)
		}
	}
}

func TestExpKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		w    mgl64.Vec3
		want mgl64.Mat3
	}{
		{mgl64.Vec3{}, mgl64.Ident3()},
		{mgl64.Vec3{0, 0, math.Pi / 2}, mgl64.Mat3FromRows(mgl64.Vec3{0, -1, 0}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 0, 1})},
		{mgl64.Vec3{math.Pi, 0, 0}, mgl64.Mat3FromRows(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, -1, 0}, mgl64.Vec3{0, 0, -1})},
		{mgl64.Vec3{0, 2 * math.Pi, 0}, mgl64.Ident3()},
		{mgl64.Vec3{0, -math.Pi / 2, 0}, mgl64.Mat3FromRows(mgl64.Vec3{0, 0, -1}, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{1, 0, 0})},
	} {
		if d := frob(Exp(c.w).Sub(c.want)); d > 1e-15 {
			t.Errorf("Exp(%v) = %v, want %v (error %g)", c.w, Exp(c.w), c.want, d)
		}
	}
}

// TestExpMatchesTextbook compares Exp with the direct axis-angle formula
// over every angle range, including the series range, and checks that the
// result is a rotation.
func TestExpMatchesTextbook(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, theta := range append(testAngles, 4, 6, 2*math.Pi, 10) {
		for range 20 {
			a := randomAxis(rng)
			r := Exp(a.Mul(theta))
			if d := frob(r.Sub(rotationAbout(a, theta))); d > 1e-15*(1+theta) {
				t.Fatalf("θ=%g: Exp differs from axis-angle formula by %g", theta, d)
			}
			if d := frob(r.Transpose().Mul3(r).Sub(mgl64.Ident3())); d > 3e-15 {
				t.Fatalf("θ=%g: Exp not orthonormal (‖RᵀR − I‖ = %g)", theta, d)
			}
			if d := r.Det(); math.Abs(d-1) > 3e-15 {
				t.Fatalf("θ=%g: det Exp = %v", theta, d)
			}
		}
	}
}

// TestExpLog checks Exp(Log(R)) = R for random rotations at every angle
// range, and Log(Exp(w)) = w for |w| ≤ π (up to the sign ambiguity at
// exactly π).
func TestExpLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, theta := range testAngles {
		for range 50 {
			a := randomAxis(rng)
			w := a.Mul(theta)
			r := rotationAbout(a, theta)
			l := Log(r)
			if math.IsNaN(l.Len()) {
				t.Fatalf("θ=%g: Log = %v", theta, l)
			}
			if d := frob(Exp(l).Sub(r)); d > 3e-15 {
				t.Fatalf("θ=%g: ‖Exp(Log R) − R‖ = %g", theta, d)
			}
			if n := l.Len(); n > math.Pi*(1+1e-15) {
				t.Fatalf("θ=%g: |Log R| = %v > π", theta, n)
			}
			// Log(Exp(w)) = w. The angle is recovered to a few ulps of π; the
			// axis near θ = π comes from the symmetric part, as accurate as R.
			got := Log(Exp(w))
			tol := 1e-15 * math.Max(theta, 1)
			if theta == math.Pi {
				if got.Sub(w).Len() > tol && got.Add(w).Len() > tol {
					t.Fatalf("θ=π: Log(Exp(%v)) = %v, want ±w", w, got)
				}
				if got != largestPositive(got) {
					t.Fatalf("θ=π: Log(Exp(%v)) = %v does not follow the sign convention", w, got)
				}
				continue
			}
			if d := got.Sub(w).Len(); d > tol {
				t.Fatalf("θ=%g: |Log(Exp(w)) − w| = %g for w = %v", theta, d, w)
			}
			// Relative accuracy near 0: the series regime.
			if theta > 0 && got.Sub(w).Len() > 1e-15*theta {
				t.Fatalf("θ=%g: relative error %g of Log(Exp(w))", theta, got.Sub(w).Len()/theta)
			}
		}
	}
}

// TestLogAtPiIsConsistent checks the sign convention at θ = π on the
// coordinate axes and on axes with ties.
func TestLogAtPiIsConsistent(t *testing.T) {
	for _, a := range []mgl64.Vec3{{1, 0, 0}, {0, -1, 0}, {0, 0, 1}, {-1, -1, 0}, {1, -2, 2}} {
		a = a.Normalize()
		want := largestPositive(a).Mul(math.Pi)
		for _, r := range []mgl64.Mat3{rotationAbout(a, math.Pi), rotationAbout(a.Mul(-1), math.Pi)} {
			if got := Log(r); got.Sub(want).Len() > 1e-15 {
				t.Errorf("Log(rotation by π about %v) = %v, want %v", a, got, want)
			}
		}
	}
}

// TestLogNonOrthonormal feeds rotations perturbed off SO(3) (as rounding or
// float32 storage leave them): no NaN, and a result within the size of the
// perturbation, including trace > 3 and trace < −1.
func TestLogNonOrthonormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, eps := range []float64{1e-12, 1e-8, 1e-6} {
		for _, theta := range testAngles {
			for range 20 {
				a := randomAxis(rng)
				r := rotationAbout(a, theta)
				var e mgl64.Mat3
				for i := range e {
					e[i] = eps * (2*rng.Float64() - 1)
				}
				l := Log(r.Add(e))
				if math.IsNaN(l.Len()) || l.Len() > math.Pi*(1+1e-15) {
					t.Fatalf("eps=%g θ=%g: Log = %v", eps, theta, l)
				}
				if d := frob(Exp(l).Sub(r)); d > 20*eps {
					t.Fatalf("eps=%g θ=%g: ‖Exp(Log(R+E)) − R‖ = %g", eps, theta, d)
				}
			}
		}
	}
	for _, r := range []mgl64.Mat3{mgl64.Ident3().Mul(1 + 1e-12), rotationAbout(mgl64.Vec3{0, 1, 0}, math.Pi).Mul(1 + 1e-9)} {
		if l := Log(r); math.IsNaN(l.Len()) {
			t.Fatalf("Log(%v) = %v", r, l)
		}
	}
}

// TestRightJacobianFiniteDifferences compares Exp(w)·[J_r(w)·d]× with
// central differences of Exp along random directions d, at random w over
// every angle range (the series range included).
func TestRightJacobianFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const h = 1e-6
	for _, theta := range append(testAngles, 4, 6) {
		for range 20 {
			w := randomAxis(rng).Mul(theta)
			d := randomAxis(rng)
			fd := Exp(w.Add(d.Mul(h))).Sub(Exp(w.Sub(d.Mul(h)))).Mul(1 / (2 * h))
			r, jr := ExpAndRightJacobian(w)
			var r2, jr2, r3 mgl64.Mat3
			ExpAndRightJacobianTo(&r2, &jr2, w)
			ExpTo(&r3, w)
			if jr != RightJacobian(w) || r != Exp(w) || r2 != r || jr2 != jr || r3 != r {
				t.Fatal("ExpAndRightJacobian(To), ExpTo, Exp and RightJacobian disagree")
			}
			an := r.Mul3(Skew(jr.Mul3x1(d)))
			if e := frob(fd.Sub(an)); e > 1e-9 {
				t.Fatalf("θ=%g: ‖finite difference − Exp·[J_r·d]×‖ = %g", theta, e)
			}
		}
	}
}

// TestRightJacobianIdentities checks J_r(0) = I, J_r(w)·w = w, the closed
// form at θ = π/2, and J_r(−w) = J_r(w)ᵀ.
func TestRightJacobianIdentities(t *testing.T) {
	if RightJacobian(mgl64.Vec3{}) != mgl64.Ident3() {
		t.Fatalf("J_r(0) = %v", RightJacobian(mgl64.Vec3{}))
	}
	// About z by π/2: J_r = (2/π)·I_xy + (1 − 2/π)·e_z·e_zᵀ − (4/π²)·[π/2 e_z]×.
	w := mgl64.Vec3{0, 0, math.Pi / 2}
	want := mgl64.Mat3FromRows(
		mgl64.Vec3{2 / math.Pi, 2 / math.Pi, 0},
		mgl64.Vec3{-2 / math.Pi, 2 / math.Pi, 0},
		mgl64.Vec3{0, 0, 1},
	)
	if d := frob(RightJacobian(w).Sub(want)); d > 1e-15 {
		t.Fatalf("J_r(π/2·e_z) = %v, want %v", RightJacobian(w), want)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, theta := range testAngles {
		w := randomAxis(rng).Mul(theta)
		j := RightJacobian(w)
		if d := j.Mul3x1(w).Sub(w).Len(); d > 1e-15*math.Max(1, theta) {
			t.Fatalf("θ=%g: |J_r(w)·w − w| = %g", theta, d)
		}
		if d := frob(RightJacobian(w.Mul(-1)).Sub(j.Transpose())); d > 1e-15 {
			t.Fatalf("θ=%g: J_r(−w) ≠ J_r(w)ᵀ (%g)", theta, d)
		}
	}
}

// TestSeriesContinuity checks that the coefficients agree on both sides of
// the series threshold.
func TestSeriesContinuity(t *testing.T) {
	for _, th := range []float64{seriesAngle, seriesAngleC} {
		a0, b0, c0, k0 := coefficients(th*(1-1e-15), 0, 0, true)
		a1, b1, c1, k1 := coefficients(th*(1+1e-15), 0, 0, true)
		for _, d := range [][2]float64{{a0, a1}, {b0, b1}, {c0, c1}, {k0, k1}} {
			if math.Abs(d[0]-d[1]) > 1e-14*math.Abs(d[0]) {
				t.Fatalf("θ = %g: coefficient jumps across the series threshold: %v vs %v", th, d[0], d[1])
			}
		}
	}
}

var (
	sinkMat mgl64.Mat3
	sinkVec mgl64.Vec3
)

func BenchmarkExp(b *testing.B) {
	ws := benchVectors()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkMat = Exp(ws[i&255])
		i++
	}
}

func BenchmarkLog(b *testing.B) {
	ws := benchVectors()
	rs := make([]mgl64.Mat3, len(ws))
	for i, w := range ws {
		rs[i] = Exp(w)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkVec = Log(rs[i&255])
		i++
	}
}

func BenchmarkRightJacobian(b *testing.B) {
	ws := benchVectors()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkMat = RightJacobian(ws[i&255])
		i++
	}
}

func BenchmarkExpAndRightJacobian(b *testing.B) {
	ws := benchVectors()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkMat, _ = ExpAndRightJacobian(ws[i&255])
		i++
	}
}

// benchVectors returns 256 random rotation vectors with angles in [0, π].
func benchVectors() []mgl64.Vec3 {
	rng := rand.New(rand.NewPCG(13, 14))
	ws := make([]mgl64.Vec3, 256)
	for i := range ws {
		ws[i] = randomAxis(rng).Mul(math.Pi * rng.Float64())
	}
	return ws
}
