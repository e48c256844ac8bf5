package synth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// Blend selects how a splice is smoothed.
type Blend int

const (
	// BlendGradient, the paper's method (Section 3.3) with one measured
	// change: the rotation-strain coordinates of the key vertices'
	// deformation gradients (and their positions) are crossfaded over the
	// window, not blended by 1D Poisson solves (see the package comment),
	// and the bones solved from them (Eq. 9).
	BlendGradient Blend = iota
	// BlendGradientPoisson is the paper's method as written: the
	// rotation-strain coordinates blended by the 1D Poisson equation over
	// the window, the input's own velocity as guidance, and the bones
	// solved from them (Eq. 9).
	BlendGradientPoisson
	// BlendCrossfade crossfades each bone position's matrix entries over
	// the window: with linear blend skinning, the crossfade of every
	// vertex between the two segments.
	BlendCrossfade
	// BlendCoordinates crossfades each bone's coordinates, its rotation's
	// axis-angle vector and its translation, over the window: the
	// paper's naive "linear blend of the bone coordinates".
	BlendCoordinates
	// BlendPoisson blends each bone position's matrix entries by a 1D
	// Poisson solve, the paper's other naive option (Figure 6).
	BlendPoisson
)

// Blends lists the blends by name, in order.
var Blends = []string{"gradient", "gradient-poisson", "crossfade", "coordinates", "poisson"}

func (b Blend) String() string {
	if b >= 0 && int(b) < len(Blends) {
		return Blends[b]
	}
	return fmt.Sprintf("Blend(%d)", int(b))
}

// ParseBlend returns the blend called name ("linear", its former name,
// for the crossfade).
func ParseBlend(name string) (Blend, error) {
	if name == "linear" {
		return BlendCrossfade, nil
	}
	for i, n := range Blends {
		if n == name {
			return Blend(i), nil
		}
	}
	return 0, fmt.Errorf("unknown blend %q (want %s)", name, strings.Join(Blends, ", "))
}

// free marks the output frames a splice blends: for a splice at s (after
// output frame s), frames s−W+1 … s+W, never frame 0.
func free(L, W int, splices []int) []bool {
	f := make([]bool, L)
	for _, s := range splices {
		for t := max(1, s-W+1); t <= min(L-1, s+W); t++ {
			f[t] = true
		}
	}
	return f
}

// poisson blends dim-dimensional values along a walk (Section 3.3's 1D
// Poisson equation): value(x, dst) writes input frame x's values. Frames
// that no splice blends keep their input values; each run of blended
// frames [a, b] solves
//
//	min Σₜ ‖yₜ − yₜ₋₁ − gₜ‖²,   gₜ = value(src[t]) − value(src[t] − 1),
//
// over the steps t = a … b+1 that exist, with y fixed at the unblended
// frames a−1 and b+1 (the last frame of the output, if blended, is left
// free: a natural boundary). gₜ is the input's own velocity at the frame
// played, so across a splice from i to j the walk moves as the input does
// after j, and the jump v(j) − v(i) is spread evenly over the run: the
// tridiagonal system 2yₖ − yₖ₋₁ − yₖ₊₁ = gₖ − gₖ₊₁, solved by the Thomas
// algorithm once per run for all dim coordinates. It returns y, L rows of
// dim values.
//
// rebranch, if set, moves the values after a run in place to the
// equivalent ones nearest those the guidance predicts from before it
// (y at a−1 plus every gₜ of the run): for rotation vectors, unwrapped
// along the input's time but not across a splice, the same rotation on
// the branch that does not make the run spin a full turn.
func poisson(src []int, isFree []bool, dim int, value func(x int, dst []float64), rebranch func(ref, y []float64)) [][]float64 {
	L := len(src)
	y := make([][]float64, L)
	for t := range L {
		y[t] = make([]float64, dim)
		value(src[t], y[t])
	}
	g := func(t int, dst, tmp []float64) {
		value(src[t], dst)
		value(src[t]-1, tmp)
		for c := range dst {
			dst[c] -= tmp[c]
		}
	}
	gt, tmp, gn := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	for a := 1; a < L; a++ {
		if !isFree[a] {
			continue
		}
		b := a
		for b+1 < L && isFree[b+1] {
			b++
		}
		n := b - a + 1
		if rebranch != nil && b+1 < L {
			pred := slices.Clone(y[a-1])
			for t := a; t <= b+1; t++ {
				g(t, gt, tmp)
				for c := range dim {
					pred[c] += gt[c]
				}
			}
			rebranch(pred, y[b+1])
		}
		// Matrix rows k = 0 … n−1 for frames a+k: diagonal 2, or 1 for the
		// last frame of the output; off-diagonals −1.
		diag := make([]float64, n)
		rhs := make([][]float64, n)
		for k := range n {
			t := a + k
			diag[k] = 2
			rhs[k] = make([]float64, dim)
			g(t, gt, tmp)
			if t+1 < L {
				g(t+1, gn, tmp)
			} else {
				diag[k] = 1
				clear(gn)
			}
			for c := range dim {
				rhs[k][c] = gt[c] - gn[c]
			}
		}
		for c := range dim {
			rhs[0][c] += y[a-1][c]
			if b+1 < L {
				rhs[n-1][c] += y[b+1][c]
			}
		}
		// Thomas algorithm for diag/−1 off-diagonals.
		cp := make([]float64, n)
		den := diag[0]
		cp[0] = -1 / den
		for c := range dim {
			rhs[0][c] /= den
		}
		for k := 1; k < n; k++ {
			den = diag[k] + cp[k-1]
			cp[k] = -1 / den
			for c := range dim {
				rhs[k][c] = (rhs[k][c] + rhs[k-1][c]) / den
			}
		}
		for k := n - 2; k >= 0; k-- {
			for c := range dim {
				rhs[k][c] -= cp[k] * rhs[k+1][c]
			}
		}
		for k := range n {
			copy(y[a+k], rhs[k])
		}
		a = b
	}
	return y
}

// linear crossfades dim-dimensional values across each splice: for a
// splice at s from input frame i to j (frame j+1 after it), output frame
// t of the window s−W+1 … s+W shows (1−a)·A(t) + a·B(t), a = (t−s+W)/(2W+1),
// with A the walk before the splice carried on past i (input frame
// i+t−s) and B the walk after it carried back before j+1 (input frame
// j+t−s), both clamped to the input. Overlapping windows add their
// corrections, in the order of the splices (increasing). It calls
// emit(t, y) for every output frame t ≥ 1 some window covers, in
// increasing t, with y its blended values: scratch that the next call
// overwrites. Frames outside every window are not visited.
//
// rebranch, if set, moves the other walk's values in place to equivalent
// ones nearest the walk's own (for rotation vectors: the same rotation on
// the nearest branch), so that a crossfade never spins a full turn.
func linear(src []int, splices []int, W, n, dim int, value func(x int, dst []float64), rebranch func(ref, y []float64), emit func(t int, y []float64)) {
	L := len(src)
	y, other, own := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	first := 0 // the first splice whose window ends at t or later
	for t := 1; t < L; t++ {
		for first < len(splices) && splices[first]+W < t {
			first++
		}
		if first == len(splices) || splices[first]-W+1 > t {
			continue
		}
		value(src[t], own)
		copy(y, own)
		for _, s := range splices[first:] {
			if s-W+1 > t {
				break
			}
			i, j := src[s], src[s+1]-1
			a := float64(t-s+W) / float64(2*W+1)
			var w float64
			if t <= s {
				value(clamp(j+t-s, n), other)
				w = a
			} else {
				value(clamp(i+t-s, n), other)
				w = 1 - a
			}
			if rebranch != nil {
				rebranch(own, other)
			}
			for c := range dim {
				y[c] += w * (other[c] - own[c])
			}
		}
		emit(t, y)
	}
}

func clamp(x, n int) int { return max(0, min(n-1, x)) }

// localPositions calls emit(t, local) for every output frame t of walk w,
// in increasing t, with the part's bones in its reference frame there
// (per Bones), blended by b with half-window W and, unless affine, each
// blended bone projected to its nearest rigid motion (Part.rigid). local
// is read-only and valid during the call only: frames outside every
// splice's window pass the input's own row, blended frames a scratch row.
func (p *Part) localPositions(w Walk, b Blend, W int, affine bool, emit func(t int, local []Affine)) {
	L, nb := len(w.Source), len(p.Bones)
	next := 0 // the next frame to emit
	plain := func(upto int) {
		for ; next < upto; next++ {
			emit(next, p.local[w.Source[next]])
		}
	}
	if nb == 0 || len(w.Splices) == 0 {
		plain(L)
		return
	}
	buf := make([]Affine, nb)
	blended := func(t int) {
		plain(t)
		if !affine {
			for c := range buf {
				p.rigid(&buf[c], c)
			}
		}
		emit(t, buf)
		next = t + 1
	}
	entries := func(x int, dst []float64) {
		for c, a := range p.local[x] {
			copy(dst[12*c:], a.R[:])
			copy(dst[12*c+9:], a.T[:])
		}
	}
	toAffine := func(y []float64) {
		for c := range buf {
			copy(buf[c].R[:], y[12*c:12*c+9])
			copy(buf[c].T[:], y[12*c+9:12*c+12])
		}
	}
	k := p.keys
	var sc solveScratch
	keyCoords := func(x int, dst []float64) { copy(dst, k.coords[x]) }
	switch b {
	case BlendCrossfade:
		linear(w.Source, w.Splices, W, p.n, 12*nb, entries, nil, func(t int, y []float64) {
			toAffine(y)
			blended(t)
		})
	case BlendCoordinates:
		linear(w.Source, w.Splices, W, p.n, 6*nb, func(x int, dst []float64) { copy(dst, p.coords[x]) }, rebranchEvery(6), func(t int, y []float64) {
			for c := range buf {
				rotation.ExpTo(&buf[c].R, mgl64.Vec3{y[6*c], y[6*c+1], y[6*c+2]})
				copy(buf[c].T[:], y[6*c+3:6*c+6])
			}
			blended(t)
		})
	case BlendPoisson, BlendGradientPoisson:
		isFree := free(L, W, w.Splices)
		var y [][]float64
		if b == BlendPoisson {
			y = poisson(w.Source, isFree, 12*nb, entries, nil)
		} else {
			y = poisson(w.Source, isFree, len(k.coords[0]), keyCoords, rebranchEvery(perKey))
		}
		for t := range L {
			if isFree[t] {
				if b == BlendPoisson {
					toAffine(y[t])
				} else {
					k.bones(buf, y[t], p.local[w.Source[t]], &sc)
				}
				blended(t)
			}
		}
	default:
		linear(w.Source, w.Splices, W, p.n, len(k.coords[0]), keyCoords, rebranchEvery(perKey), func(t int, y []float64) {
			k.bones(buf, y, p.local[w.Source[t]], &sc)
			blended(t)
		})
	}
	plain(L)
}

// rebranchEvery returns the rebranch of values that hold an axis-angle
// vector at the start of every stride coordinates (the keys' perKey, the
// bones' 6): it moves each to the branch nearest pred's.
func rebranchEvery(stride int) func(pred, y []float64) {
	return func(pred, y []float64) {
		for k := 0; k+stride <= len(y); k += stride {
			unwrapTo((*[3]float64)(y[k:]), (*[3]float64)(pred[k:]))
		}
	}
}

// rigid replaces the blended bone position x of column c by the nearest
// rigid motion: R the rotation of F's polar decomposition F = R·S (a proper
// rotation, det R = 1, even where det F ≤ 0), and the translation re-fitted
// so that the vertices the bone moves keep their weighted mean where F
// put it. That translation minimises Σᵢ wᵢᵦ‖R pᵢ + t − (F pᵢ + t_F)‖² over
// the rest vertices pᵢ: t = t_F + (F − R) p̄ᵦ, p̄ᵦ = Σᵢ wᵢᵦ pᵢ / Σᵢ wᵢᵦ
// (Part.centroid, computed once). Gradient-domain blending solves general
// affine bones (Eq. 9), and the crossfades of matrix entries give them
// too; a game engine's joint is a rotation and a translation, and a bone
// that shrinks or mirrors is no bone to an animator.
func (p *Part) rigid(x *Affine, c int) {
	var r, s mgl64.Mat3
	rotation.PolarTo(&r, &s, &x.R)
	pc := p.centroid[c]
	x.T = x.T.Add(x.R.Mul3x1(pc)).Sub(r.Mul3x1(pc))
	x.R = r
}
