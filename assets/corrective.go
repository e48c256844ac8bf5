package assets

import (
	"math"
	"slices"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/parallel"
)

// DefaultCorrectionError is the largest distance, as a fraction of the
// mesh's bounding-box diagonal, by which a skinned export's corrective
// shapes may miss the clip when ExportOptions.CorrectionError is 0: below
// what an artist sees at a glance, and it lets a few shapes carry most
// secondary motion.
const DefaultCorrectionError = 1e-3

// MorphActiveLimit is the number of morph targets some players blend at
// once (older three.js, many engines' GPU paths): a file that needs more
// at some instant may play wrongly there, and the export says so.
const MorphActiveLimit = 8

// correctionBasis is a skinned export's secondary motion as a few shapes:
// frame f's corrections are Σₖ weights[f·K+k]·shapes[k].
type correctionBasis struct {
	shapes  [][][3]float32 // K shapes, one offset per glTF vertex, in rest space
	weights []float32      // per frame, the K weights
	// miss bounds the largest model-space distance between where the
	// shapes put a vertex and where the clip has it, over every frame.
	miss float64
}

// compressCorrections finds the fewest shapes that carry the per-frame
// corrections d (d[f][i], in rest space) to within tol in model space.
// scale[i] bounds how far vertex i's skinning stretches a rest-space
// offset (the largest ‖A‖₂ of its blended skinning matrix over the
// frames, see stretch), so that a rest-space miss e is at most
// scale[i]·|e| in the model.
//
// The shapes are the principal components of the frames' corrections,
// largest first (the eigenvectors of the frames' Gram matrix
// Gfg = Σᵢ dfᵢ·dgᵢ, which for a clip of fewer frames than 3× its vertices
// is the small side of the SVD), written with weights in [0, 1]
// (unitWeights): each added component lowers every frame's residual, and
// components are added until no vertex of any frame misses by more than
// tol. When that takes as many components as frames,
// the frames themselves are the shapes (one a frame, weight 1), which are
// exact and have one shape active at a key. When no vertex of any frame
// misses by more than tol without shapes, the basis has none.
func compressCorrections(d [][][3]float64, scale []float64, tol float64) correctionBasis {
	nf := len(d)
	nv := len(scale)
	// A vertex whose correction never exceeds tol needs none: it is left
	// out of every shape (zero: a sparse target), which both shrinks the
	// file and keeps the components for the vertices that move.
	dropped := 0.0
	for i := range nv {
		need, most := false, 0.0
		for f := range nf {
			x := d[f][i]
			e := scale[i] * math.Sqrt(x[0]*x[0]+x[1]*x[1]+x[2]*x[2])
			if e > tol {
				need = true
				break
			}
			most = max(most, e)
		}
		if !need {
			for f := range nf {
				d[f][i] = [3]float64{}
			}
			dropped = max(dropped, most)
		}
	}
	gram := mat.NewSymDense(nf, nil)
	parallel.For(nf, func(f int) {
		for g := f; g < nf; g++ {
			s := 0.0
			a, b := d[f], d[g]
			for i := range a {
				s += a[i][0]*b[i][0] + a[i][1]*b[i][1] + a[i][2]*b[i][2]
			}
			gram.SetSym(f, g, s)
		}
	})
	var eig mat.EigenSym
	if !eig.Factorize(gram, true) {
		return oneShapePerFrame(d, dropped)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, nf)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })

	// The residual of every frame, lowered one component at a time; the
	// vertices left out miss by their whole correction, at most tol.
	res := make([][][3]float64, nf)
	for f := range res {
		res[f] = append([][3]float64(nil), d[f]...)
	}
	worst := func() float64 {
		w := make([]float64, nf)
		parallel.For(nf, func(f int) {
			for i, r := range res[f] {
				w[f] = max(w[f], scale[i]*math.Sqrt(r[0]*r[0]+r[1]*r[1]+r[2]*r[2]))
			}
		})
		m := 0.0
		for _, x := range w {
			m = max(m, x)
		}
		return m
	}
	var shapes [][]mgl64.Vec3
	var coef [][]float64 // per shape, per frame
	miss := worst()
	top := vals[order[0]]
	for _, k := range order {
		if miss <= tol || len(shapes) >= nf-1 || !(vals[k] > 1e-24*top) {
			break
		}
		sigma := math.Sqrt(vals[k])
		u := make([]mgl64.Vec3, nv)
		for f := range nf {
			v := vecs.At(f, k) / sigma
			if v == 0 {
				continue
			}
			for i, x := range d[f] {
				u[i] = u[i].Add(mgl64.Vec3(x).Mul(v))
			}
		}
		c := make([]float64, nf)
		parallel.For(nf, func(f int) {
			s := 0.0
			for i, x := range d[f] {
				s += u[i].Dot(mgl64.Vec3(x))
			}
			c[f] = s
			for i := range res[f] {
				r := &res[f][i]
				r[0] -= s * u[i][0]
				r[1] -= s * u[i][1]
				r[2] -= s * u[i][2]
			}
		})
		shapes, coef = append(shapes, u), append(coef, c)
		miss = worst()
	}
	switch {
	case miss > tol:
		return oneShapePerFrame(d, dropped)
	case len(shapes) == 0: // every correction within tol, or none invertible
		return correctionBasis{miss: max(miss, dropped)}
	}
	return unitWeights(shapes, coef, max(miss, dropped))
}

// unitWeights writes frame f's corrections Σₖ cₖ(f)·uₖ with every weight
// in [0, 1], which players that clamp morph weights to that range (Blender's
// shape keys) play as written: with lₖ and hₖ the least and largest of
// cₖ over the frames, cₖuₖ = ((cₖ − lₖ)/(hₖ − lₖ))·(hₖ − lₖ)uₖ + lₖuₖ, so
// shape k is (hₖ − lₖ)uₖ weighted (cₖ − lₖ)/(hₖ − lₖ), and the lₖuₖ are
// summed into one more shape, first, weighted 1 in every frame.
func unitWeights(shapes [][]mgl64.Vec3, coef [][]float64, miss float64) correctionBasis {
	nf, nv, n := len(coef[0]), len(shapes[0]), len(shapes)+1
	b := correctionBasis{shapes: make([][][3]float32, n), weights: make([]float32, nf*n), miss: miss}
	base := make([]mgl64.Vec3, nv)
	for k, u := range shapes {
		lo, hi := slices.Min(coef[k]), slices.Max(coef[k])
		span := hi - lo
		s := make([][3]float32, nv)
		for i, x := range u {
			base[i] = base[i].Add(x.Mul(lo))
			s[i] = [3]float32{float32(x[0] * span), float32(x[1] * span), float32(x[2] * span)}
		}
		b.shapes[k+1] = s
		for f := range nf {
			w := 0.0
			if span > 0 {
				w = (coef[k][f] - lo) / span
			}
			b.weights[f*n+k+1] = float32(w)
		}
	}
	b.shapes[0] = make([][3]float32, nv)
	for i, x := range base {
		b.shapes[0][i] = [3]float32{float32(x[0]), float32(x[1]), float32(x[2])}
	}
	for f := range nf {
		b.weights[f*n] = 1
	}
	return b
}

// oneShapePerFrame is the basis of frame f's corrections as shape f,
// shown alone at its key; it misses by what was dropped.
func oneShapePerFrame(d [][][3]float64, dropped float64) correctionBasis {
	b := correctionBasis{shapes: make([][][3]float32, len(d)), weights: oneHotWeights(len(d)), miss: dropped}
	for f, fr := range d {
		s := make([][3]float32, len(fr))
		for i, x := range fr {
			s[i] = [3]float32{float32(x[0]), float32(x[1]), float32(x[2])}
		}
		b.shapes[f] = s
	}
	return b
}

// activeTargets returns the most morph targets with a non-zero weight at
// any instant of a LINEAR weights animation of n targets (weights per key,
// frame-major): between two keys, the targets either key weighs.
func activeTargets(weights []float32, n int) int {
	if n == 0 {
		return 0
	}
	keys := len(weights) / n
	most := 0
	for f := range keys {
		c := 0
		for k := range n {
			if weights[f*n+k] != 0 || (f+1 < keys && weights[(f+1)*n+k] != 0) {
				c++
			}
		}
		most = max(most, c)
	}
	return most
}

// writeMorphTarget adds a POSITION morph target accessor of the offsets
// d (one per glTF vertex): sparse (no buffer view, so zeros, with the
// non-zero offsets listed by index) when that is smaller, as it is for
// a target that moves part of the mesh, else dense. Min and max are over
// every vertex, as the validator wants.
func writeMorphTarget(doc *gltf.Document, d [][3]float32) int {
	var idx []uint32
	var vals [][3]float32
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, x := range d {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], float64(x[c])), max(hi[c], float64(x[c]))
		}
		if x != ([3]float32{}) {
			idx = append(idx, uint32(i))
			vals = append(vals, x)
		}
	}
	indexBytes := 4
	if len(d) <= math.MaxUint16+1 {
		indexBytes = 2
	}
	if len(idx)*(indexBytes+12) >= len(d)*12 {
		return modeler.WritePosition(doc, d)
	}
	if len(idx) == 0 { // all zero: one listed zero keeps the accessor sparse and valid
		idx, vals = []uint32{0}, [][3]float32{{}}
	}
	sp := &gltf.Sparse{Count: len(idx)}
	pad4(doc)
	if indexBytes == 2 {
		short := make([]uint16, len(idx))
		for k, i := range idx {
			short[k] = uint16(i)
		}
		sp.Indices = gltf.SparseIndices{BufferView: modeler.WriteBufferView(doc, gltf.TargetNone, short), ComponentType: gltf.ComponentUshort}
	} else {
		sp.Indices = gltf.SparseIndices{BufferView: modeler.WriteBufferView(doc, gltf.TargetNone, idx), ComponentType: gltf.ComponentUint}
	}
	pad4(doc)
	sp.Values = gltf.SparseValues{BufferView: modeler.WriteBufferView(doc, gltf.TargetNone, vals)}
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: len(d),
		Min: lo[:], Max: hi[:], Sparse: sp})
	return len(doc.Accessors) - 1
}

// pad4 pads the document's last buffer to a multiple of 4 bytes, so that
// the next buffer view starts aligned for any component type.
func pad4(doc *gltf.Document) {
	if len(doc.Buffers) == 0 {
		return
	}
	b := doc.Buffers[len(doc.Buffers)-1]
	for len(b.Data)%4 != 0 {
		b.Data = append(b.Data, 0)
		b.ByteLength++
	}
}
