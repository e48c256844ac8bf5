package rotation

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"
)

func randomMatrix(rng *rand.Rand) mgl64.Mat3 {
	var a mgl64.Mat3
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	return a
}

func randomRotation(rng *rand.Rand) mgl64.Mat3 {
	return rotationAbout(randomAxis(rng), math.Pi*rng.Float64())
}

// randomSPD returns Q·diag(λ)·Qᵀ for a random rotation Q.
func randomSPD(rng *rand.Rand, l mgl64.Vec3) mgl64.Mat3 {
	q := randomRotation(rng)
	return q.Mul3(mgl64.Diag3(l)).Mul3(q.Transpose())
}

// checkRotation fails unless r is orthonormal with det +1 to tol.
func checkRotation(t *testing.T, what string, r mgl64.Mat3, tol float64) {
	t.Helper()
	if hasNaN(r) {
		t.Fatalf("%s: non-finite rotation %v", what, r)
	}
	if d := frob(r.Transpose().Mul3(r).Sub(mgl64.Ident3())); d > tol {
		t.Fatalf("%s: ‖RᵀR − I‖ = %g", what, d)
	}
	if d := r.Det(); math.Abs(d-1) > tol {
		t.Fatalf("%s: det R = %v", what, d)
	}
}

// checkPolar checks the promises of Polar on a: R a rotation, S symmetric,
// RS = a, and S positive semi-definite when det a ≥ 0 (with at most one
// negative eigenvalue, the smallest in magnitude, when det a < 0).
func checkPolar(t *testing.T, what string, a mgl64.Mat3) (r, s mgl64.Mat3) {
	t.Helper()
	r, s = Polar(a)
	scale := frob(a)
	if scale == 0 {
		if r != mgl64.Ident3() || s != (mgl64.Mat3{}) {
			t.Fatalf("%s: Polar(0) = %v, %v", what, r, s)
		}
		return r, s
	}
	checkRotation(t, what, r, 4e-15)
	if hasNaN(s) {
		t.Fatalf("%s: non-finite S %v", what, s)
	}
	if s != s.Transpose() {
		t.Fatalf("%s: S not symmetric: %v", what, s)
	}
	if d := frob(r.Mul3(s).Sub(a)); d > 1e-14*scale {
		t.Fatalf("%s: ‖RS − A‖/‖A‖ = %g", what, d/scale)
	}
	ev := symmetricEigenvalues(divide(s, scale)) // gonum's EigenSym fails on tiny scales
	neg := 0
	for _, e := range ev {
		if e < -4e-15 {
			neg++
		}
	}
	if det := divide(a, scale).Det(); det >= 0 && neg > 0 || det < 0 && neg > 1 {
		t.Fatalf("%s: det A = %g but S has eigenvalues %v", what, det, ev)
	}
	if neg == 1 {
		smallest := ev[0]
		for _, e := range ev {
			if math.Abs(e) < math.Abs(smallest) {
				smallest = e
			}
		}
		if smallest >= 0 {
			t.Fatalf("%s: the negative eigenvalue of S is not the smallest in magnitude: %v", what, ev)
		}
	}
	return r, s
}

// divide returns m/x entry by entry (m.Mul(1/x) overflows for subnormal x).
func divide(m mgl64.Mat3, x float64) mgl64.Mat3 {
	for i := range m {
		m[i] /= x
	}
	return m
}

// symmetricEigenvalues returns the eigenvalues of a symmetric matrix
// (gonum's EigenSym, an independent implementation).
func symmetricEigenvalues(s mgl64.Mat3) []float64 {
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(3, s[:]), false) {
		panic("EigenSym failed")
	}
	return e.Values(nil)
}

func TestPolarRandomMatrices(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 20000 {
		checkPolar(t, "random", randomMatrix(rng))
	}
}

// TestPolarTo: the pointer form gives Polar's factors, also in place.
func TestPolarTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	for range 100 {
		a := randomMatrix(rng)
		r0, s0 := Polar(a)
		var r, s mgl64.Mat3
		PolarTo(&r, &s, &a)
		if r != r0 || s != s0 {
			t.Fatal("PolarTo differs from Polar")
		}
		b := a
		PolarTo(&b, &s, &b) // R over its own input
		if b != r0 || s != s0 {
			t.Fatal("PolarTo in place (R) differs from Polar")
		}
		b = a
		PolarTo(&r, &b, &b) // S over its own input
		if r != r0 || b != s0 {
			t.Fatal("PolarTo in place (S) differs from Polar")
		}
	}
}

// TestPolarKnownFactors builds A = R·S from a random rotation and a random
// symmetric positive definite S, condition numbers up to 1e8, and recovers
// both factors.
func TestPolarKnownFactors(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, kappa := range []float64{1, 2, 1e3, 1e8} {
		for range 2000 {
			r0 := randomRotation(rng)
			l := mgl64.Vec3{1, math.Pow(kappa, -rng.Float64()), 1 / kappa}
			s0 := randomSPD(rng, l)
			r, s := checkPolar(t, "R·S", r0.Mul3(s0))
			if d := frob(r.Sub(r0)); d > 1e-15*kappa*4 {
				t.Fatalf("κ=%g: ‖R − R₀‖ = %g", kappa, d)
			}
			if d := frob(s.Sub(s0)); d > 1e-14 {
				t.Fatalf("κ=%g: ‖S − S₀‖ = %g", kappa, d)
			}
		}
	}
	// Known answer: a rotation about z times diag(2, 3, 4).
	r0 := rotationAbout(mgl64.Vec3{0, 0, 1}, 0.7)
	r, s := Polar(r0.Mul3(mgl64.Diag3(mgl64.Vec3{2, 3, 4})))
	if frob(r.Sub(r0)) > 1e-15 || frob(s.Sub(mgl64.Diag3(mgl64.Vec3{2, 3, 4}))) > 1e-14 {
		t.Fatalf("Polar(Rz·diag(2,3,4)) = %v, %v", r, s)
	}
}

// TestPolarRotationsAndScalings: a rotation is its own R with S = I, and a
// uniform scaling c·I gives R = I, S = c·I, at every scale.
func TestPolarRotationsAndScalings(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, theta := range testAngles {
		r0 := rotationAbout(randomAxis(rng), theta)
		r, s := checkPolar(t, "rotation", r0)
		if frob(r.Sub(r0)) > 2e-15 || frob(s.Sub(mgl64.Ident3())) > 2e-15 {
			t.Fatalf("θ=%g: Polar(R) = %v, %v", theta, r, s)
		}
	}
	for _, c := range []float64{1e-300, 1e-45, 1e-8, 0.3, 1, 3, 1e8, 1e45, 1e300} {
		r, s := checkPolar(t, "c·I", mgl64.Ident3().Mul(c))
		if r != mgl64.Ident3() || s != mgl64.Ident3().Mul(c) {
			t.Fatalf("Polar(%g·I) = %v, %v", c, r, s)
		}
	}
}

// TestPolarSingular covers the rank-deficient matrices that collapsed
// triangles produce: rank 2, 1 and 0, exactly and nearly, at every scale.
func TestPolarSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	var cases []mgl64.Mat3
	cases = append(cases, mgl64.Mat3{}, mgl64.Diag3(mgl64.Vec3{1, 1, 0}), mgl64.Diag3(mgl64.Vec3{1, 0, 0}),
		mgl64.Diag3(mgl64.Vec3{0, 0, 1}), mgl64.Diag3(mgl64.Vec3{1, 1, -1e-20}), mgl64.Diag3(mgl64.Vec3{-1, 1, 0}),
		mgl64.Mat3{0, 0, 0, 0, 0, 0, 0, 0, 1e-310})
	for range 2000 {
		x, y, z := randomAxis(rng), randomAxis(rng), randomAxis(rng)
		rank1 := mgl64.Mat3{}
		for j := 0; j < 3; j++ {
			for i := 0; i < 3; i++ {
				rank1[3*j+i] = x[i] * y[j]
			}
		}
		a := randomMatrix(rng)
		// Rank 2: project the rows onto the plane orthogonal to z.
		p := mgl64.Ident3().Sub(mgl64.Mat3{z[0] * z[0], z[1] * z[0], z[2] * z[0], z[0] * z[1], z[1] * z[1], z[2] * z[1], z[0] * z[2], z[1] * z[2], z[2] * z[2]})
		rank2 := a.Mul3(p)
		near := rank2.Add(randomMatrix(rng).Mul(1e-13))
		collapsed := mgl64.Mat3FromCols(x, x.Mul(0.5), x.Mul(-2)) // a triangle squashed onto a line
		cases = append(cases, rank1, rank2, near, collapsed)
	}
	for _, a := range cases {
		for _, scale := range []float64{1e-200, 1e-6, 1, 1e6, 1e200} {
			checkPolar(t, "singular", a.Mul(scale))
		}
	}
}

// TestPolarReflections: det A < 0 puts the reflection into S, along the
// direction of the smallest singular value.
func TestPolarReflections(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for range 2000 {
		r0 := randomRotation(rng)
		s0 := randomSPD(rng, mgl64.Vec3{3, 2, 1})
		flip := mgl64.Diag3(mgl64.Vec3{1, 1, -1})
		a := r0.Mul3(s0).Mul3(flip)
		checkPolar(t, "reflection", a)
	}
}

// TestPolarNewtonMatchesSVD: on rotations times symmetric positive definite
// stretches, with condition numbers up to 1e6 and scales from 1e-20 to
// 1e20, newtonPolar takes every matrix with det a ≥ newtonMinDet·‖a‖_F³
// and no other, and its R and S agree with the SVD path's (svdPolar) to
// 1e-14 (relative to ‖a‖ for S), with R orthonormal to 2e-15, as
// polar.go promises.
func TestPolarNewtonMatchesSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	var worstR, worstS, worstOrtho float64
	taken, declined := 0, 0
	for i := range 200000 {
		var l mgl64.Vec3
		if i%2 == 0 {
			// Deformation-gradient-like: principal stretches in [0.5, 2].
			l = mgl64.Vec3{math.Exp2(2*rng.Float64() - 1), math.Exp2(2*rng.Float64() - 1), math.Exp2(2*rng.Float64() - 1)}
		} else {
			kappa := math.Pow(10, 6*rng.Float64())
			l = mgl64.Vec3{1, math.Pow(kappa, -rng.Float64()), 1 / kappa}
		}
		a := randomRotation(rng).Mul3(randomSPD(rng, l)).Mul(math.Pow(10, 40*rng.Float64()-20))
		var rn, rs, sn, ss mgl64.Mat3
		ok := newtonPolar(&rn, &a)
		scale := frob(a)
		ratio := divide(a, scale).Det() // det a / ‖a‖_F³
		if !ok {
			if ratio >= newtonMinDet*(1+1e-12) {
				t.Fatalf("newtonPolar declines %v, det a/‖a‖³ = %g", a, ratio)
			}
			declined++
			continue
		}
		if ratio < newtonMinDet*(1-1e-12) {
			t.Fatalf("newtonPolar takes %v, det a/‖a‖³ = %g", a, ratio)
		}
		taken++
		svdPolar(&rs, &a)
		symmetricPart(&sn, &rn, &a)
		symmetricPart(&ss, &rs, &a)
		worstR = math.Max(worstR, frob(rn.Sub(rs)))
		worstS = math.Max(worstS, frob(divide(sn.Sub(ss), scale)))
		worstOrtho = math.Max(worstOrtho, orthonormalityError(rn))
		if d := rn.Det(); math.Abs(d-1) > 4e-15 {
			t.Fatalf("det R = %v", d)
		}
	}
	if worstR > 1e-14 || worstS > 1e-14 || worstOrtho > 2e-15 {
		t.Errorf("Newton vs SVD: ‖ΔR‖ = %.2g, ‖ΔS‖/‖a‖ = %.2g; ‖RᵀR − I‖ = %.2g", worstR, worstS, worstOrtho)
	}
	t.Logf("%d taken, %d declined; Newton vs SVD: ‖ΔR‖ ≤ %.2g, ‖ΔS‖/‖a‖ ≤ %.2g; ‖RᵀR − I‖ ≤ %.2g", taken, declined, worstR, worstS, worstOrtho)
}

// TestPolarNewtonDeclines: the matrices that newtonPolar leaves to the SVD,
// which leaves r untouched, so that Polar's answer on them is as before.
func TestPolarNewtonDeclines(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rng := rand.New(rand.NewPCG(45, 46))
	rot := randomRotation(rng)
	cases := map[string]mgl64.Mat3{
		"zero":        {},
		"NaN":         {nan, 0, 0, 0, 1, 0, 0, 0, 1},
		"+Inf":        {inf, 0, 0, 0, 1, 0, 0, 0, 1},
		"−Inf":        rot.Mul(-inf),
		"reflection":  rot.Mul3(mgl64.Diag3(mgl64.Vec3{1, 1, -1})),
		"−I":          mgl64.Ident3().Mul(-1),
		"rank 2":      mgl64.Diag3(mgl64.Vec3{1, 1, 0}),
		"rank 1":      mgl64.Diag3(mgl64.Vec3{0, 0, 1}),
		"near rank 2": rot.Mul3(mgl64.Diag3(mgl64.Vec3{1, 1, 1e-4})),
		"tiny":        rot.Mul(1e-46),
		"huge":        rot.Mul(1e46),
		"subnormal":   {0, 0, 0, 0, 0, 0, 0, 0, 1e-310},
	}
	for name, a := range cases {
		sentinel := mgl64.Mat3{1, 2, 3, 4, 5, 6, 7, 8, 9}
		r := sentinel
		if newtonPolar(&r, &a) || r != sentinel {
			t.Errorf("%s: newtonPolar takes %v", name, a)
		}
	}
}

// orthonormalityError returns ‖RᵀR − I‖_F, with every dot product summed
// exactly but for the final rounding (products split by FMA, compensated
// sum), so that it measures R rather than rounding in the test.
func orthonormalityError(r mgl64.Mat3) float64 {
	sum := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			acc, comp := 0.0, 0.0
			if i == j {
				acc = -1
			}
			for k := 0; k < 3; k++ {
				p := r[3*i+k] * r[3*j+k]
				e := math.FMA(r[3*i+k], r[3*j+k], -p)
				next := acc + p
				comp += (acc - next) + p + e
				acc = next
			}
			v := acc + comp
			sum += v * v
		}
	}
	return math.Sqrt(sum)
}

func TestInvCbrt(t *testing.T) {
	worst := 0.0
	for x := 0x1p-1000; x < 0x1p1000; x *= 1.001 {
		worst = math.Max(worst, math.Abs(invCbrt(x)*math.Cbrt(x)-1))
	}
	if worst > 0.035 {
		t.Errorf("invCbrt off by up to %g", worst)
	}
}

// TestPolarNearestRotation checks that R maximises tr(RᵀA) against random
// rotations and against small perturbations of R itself.
func TestPolarNearestRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	tr := func(r, a mgl64.Mat3) float64 { return r.Transpose().Mul3(a).Trace() }
	for range 500 {
		a := randomMatrix(rng)
		r, _ := Polar(a)
		best := tr(r, a)
		for range 20 {
			if q := randomRotation(rng); tr(q, a) > best+1e-12 {
				t.Fatalf("random rotation beats Polar's R: %g > %g", tr(q, a), best)
			}
			if q := r.Mul3(Exp(randomAxis(rng).Mul(1e-4))); tr(q, a) > best+1e-12 {
				t.Fatalf("perturbed R beats Polar's R: %g > %g", tr(q, a), best)
			}
		}
	}
}

func TestSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for i := range 20000 {
		a := randomMatrix(rng)
		switch i % 4 {
		case 1:
			a = a.Mul(1e-150)
		case 2:
			a = a.Mul(1e150)
		case 3:
			a = mgl64.Mat3FromCols(a.Col(0), a.Col(0).Mul(2), a.Col(2)) // rank 2
		}
		u, sigma, v := SVD(a)
		checkRotation(t, "U", u, 4e-15)
		checkRotation(t, "V", v, 4e-15)
		if d := frob(u.Mul3(mgl64.Diag3(sigma)).Mul3(v.Transpose()).Sub(a)); d > 1e-14*frob(a) {
			t.Fatalf("‖UΣVᵀ − A‖/‖A‖ = %g", d/frob(a))
		}
		tol := 1e-15 * sigma[0]
		if sigma[1] < 0 || sigma[0] < sigma[1]-tol || sigma[1] < math.Abs(sigma[2])-tol {
			t.Fatalf("σ = %v not ordered", sigma)
		}
		if det := divide(a, frob(a)).Det(); det != 0 && math.Signbit(det) != math.Signbit(sigma[2]) && math.Abs(sigma[2]) > tol {
			t.Fatalf("σ₃ = %g has not the sign of det A = %g", sigma[2], det)
		}
	}
	// Known answer: singular values of a diagonal matrix, sorted, sign last.
	_, sigma, _ := SVD(mgl64.Diag3(mgl64.Vec3{-2, 5, 3}))
	if sigma.Sub(mgl64.Vec3{5, 3, -2}).Len() > 1e-15 {
		t.Fatalf("SVD(diag(−2, 5, 3)) σ = %v, want (5, 3, −2)", sigma)
	}
	// Small singular values stay accurate relative to themselves.
	q1, q2 := randomRotation(rng), randomRotation(rng)
	want := mgl64.Vec3{1, 1e-5, 1e-10}
	_, sigma, _ = SVD(q1.Mul3(mgl64.Diag3(want)).Mul3(q2))
	for i := range 3 {
		if math.Abs(sigma[i]-want[i]) > 1e-15 {
			t.Fatalf("σ = %v, want %v", sigma, want)
		}
	}
}

func BenchmarkPolar(b *testing.B) {
	rng := rand.New(rand.NewPCG(35, 36))
	as := make([]mgl64.Mat3, 256)
	for i := range as {
		// Deformation-gradient-like input: a rotation times a mild stretch.
		as[i] = randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1.2, 1, 0.8}))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkMat, _ = Polar(as[i&255])
		i++
	}
}

// BenchmarkPolarToDeformation: PolarTo over a slice, as the nonlinear
// feature space calls it, on deformation gradients of animated meshes:
// random rotations times stretches with principal values uniform in
// [0.8, 1.25]. These take 4 Newton steps, sometimes 5; the deformation
// gradients of the horse's and lion's example poses take 2 to 6, 3.8 on
// average.
func BenchmarkPolarToDeformation(b *testing.B) {
	rng := rand.New(rand.NewPCG(41, 42))
	as := make([]mgl64.Mat3, 1024)
	for i := range as {
		l := mgl64.Vec3{0.8 + 0.45*rng.Float64(), 0.8 + 0.45*rng.Float64(), 0.8 + 0.45*rng.Float64()}
		as[i] = randomRotation(rng).Mul3(randomSPD(rng, l))
	}
	b.ReportAllocs()
	var r, s mgl64.Mat3
	i := 0
	for b.Loop() {
		PolarTo(&r, &s, &as[i&1023])
		i++
	}
	sinkMat = r
}

func BenchmarkSVD(b *testing.B) {
	rng := rand.New(rand.NewPCG(37, 38))
	as := make([]mgl64.Mat3, 256)
	for i := range as {
		as[i] = randomMatrix(rng)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkMat, sinkVec, _ = SVD(as[i&255])
		i++
	}
}
