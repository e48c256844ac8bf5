package synth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/solver/meshgraph"
	"gallop/solver/rotation"
)

// Options controls Analyze. The zero value gives the paper's settings.
type Options struct {
	// Alpha and Beta weigh the velocity and reference-bone terms of the
	// transition cost (Eq. 5). Zero gives the paper's balance:
	// α = maxᵢ‖qᵢ‖² / maxᵢ‖q̇ᵢ‖², β = maxᵢ‖qᵢ‖² / maxᵢ‖rᵢ‖².
	Alpha, Beta float64

	// Rank is the truncation threshold of the SVD of A_r (Eq. 4),
	// relative to the largest singular value: singular values below
	// Rank·σ₁ are dropped. Default 0.005, the paper's figure.
	Rank float64

	// MinJump is the least distance |i − j| in input frames between the
	// two frames of a candidate transition (i, j); default 5. Nearer pairs
	// always cost little and would only skip or repeat a few frames.
	MinJump int

	// Components splits the mesh at a cut node of the bone graph into
	// parts synthesised independently (Section 4; see Analysis.CutNodes).
	Components bool

	// Coupling is the weight that two bones must both have on one vertex
	// to be joined in the bone graph; default 0.2. Bones coupled only
	// through smaller weights are weakly coupled. (With SSDR's four
	// influences per vertex, smaller thresholds join nearly every pair of
	// neighbouring bones and leave the graph without cut nodes.)
	Coupling float64

	// Progress, if set, is called with the fraction done and what is
	// being done.
	Progress func(fraction float64, what string)

	// Figures, if set, are the input's figures as an earlier Analyze of
	// the same model measured them: Analyze takes them instead of
	// measuring Model.Input, which may then be empty. A model kept
	// without its input frames (a prepared stage written to a file for
	// other processes) is analysed this way exactly as with them.
	Figures *InputFigures
}

// InputFigures are what Analyze measures of the input frames: the 99th
// percentile of the per-frame largest vertex acceleration and the largest
// relative change of an edge's length from the rest pose (Analysis.Accel99
// and Analysis.EdgeMax).
type InputFigures struct {
	Accel99, EdgeMax float64
}

func (o Options) withDefaults() Options {
	if o.Rank <= 0 {
		o.Rank = 0.005
	}
	if o.MinJump <= 0 {
		o.MinJump = 5
	}
	if o.Coupling <= 0 {
		o.Coupling = 0.2
	}
	return o
}

// Analysis is what Analyze finds in an input: the parts of the mesh that
// are synthesised (one, or one per component), each with its transition
// costs and its blending operators, and the figures of the input that the
// quality measures compare against. It is immutable and safe for
// concurrent use.
type Analysis struct {
	Model *Model
	Opts  Options

	Reference   int                  // the reference bone of the whole mesh: the largest weight sum Σᵢ wᵢᵦ
	BoneGraph   [][2]int             // bones joined where both weigh at least Coupling on a vertex
	CutNodes    []int                // the bone graph's cut nodes (articulation points), increasing
	Parts       []*Part              // one part, or with Components one per component
	Vertex      []int                // per vertex the part of its largest weight's bone, -1 for the reference bone
	Diagonal    float64              // of the rest mesh's bounding box
	area        []float64            // per vertex: a third of its triangles' rest areas (see vertexAreas)
	incidence   *meshgraph.Incidence // each vertex's triangles
	Accel99     float64              // 99th percentile over input frames of the largest vertex acceleration
	EdgeMax     float64              // the input's largest relative change of an edge length from the rest pose
	figVerts    []int                // the vertices the figures pose: the sampled triangles' corners (figureSample)
	figRest     []mgl64.Vec3         // their rest positions
	figInf      []figInfluence       // their influences, vertex after vertex
	edges       [][2]int32           // the sampled edges, as indices into figVerts
	edgePart    []int                // per sampled edge, its first end point's part (Vertex)
	restLen     []float64            // their rest lengths
	restDen     []float64            // the same floored at sliver times their mean (see edgeChange)
	inputPos    [][]mgl64.Vec3       // per input frame, the figure vertices in the model's pose
	inputLen    [][]float64          // per input frame, the sampled edges' lengths in the model's pose
	volumes     []float64            // per input frame, the volume in the model's pose (inputVolumes)
	volumesOnce sync.Once
}

// Part is a set of bones synthesised together in the frame of a reference
// bone. Its transition cost D(i, j) is Eq. 5 over its bones' local-frame
// positions.
type Part struct {
	Reference   int     // the reference bone bᵣ
	Bones       []int   // the other bones, increasing
	Rank        int     // the length of the reduced coordinates qᵢ
	Alpha, Beta float64 // the weights of Eq. 5 in use
	Step        float64 // the median rigid-aligned RMS distance between adjacent frames' poses (see Transition)
	MinJump     int

	n                int
	cost             []float64    // n×n, row-major; +Inf where i or j is frame 0
	cands            []Transition // every candidate transition
	defaultThreshold float64
	poses            *poseSample
	local            [][]Affine   // per input frame, per Bones: (Rᵦ|ᵣ, tᵦ|ᵣ) of Eq. 2
	coords           [][]float64  // per input frame, 6 per Bones: Rᵦ|ᵣ's axis-angle vector (unwrapped along time), tᵦ|ᵣ
	centroid         []mgl64.Vec3 // per Bones: the rest vertices' mean weighted by the bone's weights and their areas (see rigid)
	keys             *keys
}

// Frames returns the number of input frames.
func (p *Part) Frames() int { return p.n }

// Cost returns D(i, j), +Inf if i or j is 0 (the first frame has no
// velocity).
func (p *Part) Cost(i, j int) float64 { return p.cost[i*p.n+j] }

// DefaultThreshold returns the part's default threshold on a transition's
// pose distance, in steps: DefaultThreshold (2), or, if no loop joins
// frames that alike, the least distance at which one does.
func (p *Part) DefaultThreshold() float64 { return p.defaultThreshold }

// Analyze prepares m for synthesis: the reference bone, the bone graph and
// its cut nodes, the parts, and for each part the transition costs and the
// gradient-domain blending operators. It fails on bad input with an error
// that says what is wrong; ctx cancels it.
func Analyze(ctx context.Context, m *Model, opts Options) (*Analysis, error) {
	if err := m.check(opts.Figures == nil); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	report := func(f float64, what string) {
		if opts.Progress != nil {
			opts.Progress(f, what)
		}
	}
	adj, err := meshgraph.New(len(m.Rest), m.Triangles)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	a := &Analysis{Model: m, Opts: opts}
	lo, hi := m.Rest[0], m.Rest[0]
	for _, p := range m.Rest {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
		}
	}
	a.Diagonal = hi.Sub(lo).Len()
	if !(a.Diagonal > 0) {
		return nil, errors.New("synth: the rest mesh has no extent")
	}
	a.area = vertexAreas(m.Rest, m.Triangles)
	a.incidence = meshgraph.NewIncidence(len(m.Rest), m.Triangles)
	nb := m.NumBones()
	sum := make([]float64, nb)
	for _, l := range m.Weights {
		for _, in := range l {
			sum[in.Bone] += in.Weight
		}
	}
	for b := range sum {
		if sum[b] > sum[a.Reference] {
			a.Reference = b
		}
	}
	a.BoneGraph = boneGraph(m, opts.Coupling)
	a.CutNodes = cutNodes(nb, a.BoneGraph)
	report(0.05, "input figures")
	a.figureSample(adj.Edges())
	a.inputFigures()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sets, ref := [][]int{nil}, a.Reference
	refs := []int{ref}
	if opts.Components && len(a.CutNodes) > 0 {
		ref = a.splitBone(sum)
		sets, refs = nil, nil
		for _, s := range componentsWithout(nb, a.BoneGraph, ref) {
			a.splitPart(s, ref, sum, &sets, &refs)
		}
	} else {
		for b := range nb {
			if b != ref {
				sets[0] = append(sets[0], b)
			}
		}
	}
	a.Vertex = make([]int, len(m.Rest))
	part := make([]int, nb)
	part[ref] = -1
	for k, s := range sets {
		for _, b := range s {
			part[b] = k
		}
	}
	for i, l := range m.Weights {
		best, bone := -1.0, ref
		for _, in := range l {
			if in.Weight > best {
				best, bone = in.Weight, in.Bone
			}
		}
		a.Vertex[i] = part[bone]
	}
	a.setEdgeParts()
	for k, s := range sets {
		report(0.1+0.9*float64(k)/float64(len(sets)), fmt.Sprintf("part %d of %d", k+1, len(sets)))
		var idx []int // the part's figure vertices, and the reference bone's; nil for all
		for x, i := range a.figVerts {
			if v := a.Vertex[i]; len(sets) > 1 && (v == k || v == -1) {
				idx = append(idx, x)
			}
		}
		p, err := newPart(ctx, a, adj, refs[k], s, idx)
		if err != nil {
			return nil, err
		}
		a.Parts = append(a.Parts, p)
	}
	report(1, "done")
	return a, nil
}

// minPartBones is the fewest bones a part split off recursively keeps, and
// leaves its parent: a part of one or two bones has too few coordinates
// for its own transitions to vary anything.
const minPartBones = 3

// splitPart appends to sets and refs the part of bones hanging from bone
// parent, split again where it can be (Section 4, recursively): at the
// bone c of the part whose removal cuts the part's bone graph into pieces,
// the pieces not joined to parent become parts of their own hanging from
// c (which stays in the part), and the part and each piece are split in
// turn. A split is made only where the part keeps, and every piece has,
// at least minPartBones bones; of those, at the cut that splits most
// evenly: whose lightest piece, the part kept included, weighs most
// (Σᵢ wᵢᵦ over its bones), ties to the lower bone. Parents
// come before their pieces, so a part's reference bone is placed before
// its own bones are.
func (a *Analysis) splitPart(bones []int, parent int, sum []float64, sets *[][]int, refs *[]int) {
	in := make(map[int]bool, len(bones))
	for _, b := range bones {
		in[b] = true
	}
	var edges [][2]int
	joined := map[int]bool{} // bones joined to parent
	for _, e := range a.BoneGraph {
		switch {
		case in[e[0]] && in[e[1]]:
			edges = append(edges, e)
		case e[0] == parent && in[e[1]]:
			joined[e[1]] = true
		case e[1] == parent && in[e[0]]:
			joined[e[0]] = true
		}
	}
	best, bestScore := -1, 0.0
	var bestKeep []int
	var bestPieces [][]int
	for _, c := range bones {
		keep := []int{c}
		var pieces [][]int
		for _, comp := range componentsWithout(len(sum), edges, c) {
			if len(comp) == 1 && !in[comp[0]] || len(comp) == 1 && comp[0] == c {
				continue // a bone outside the part (the graph has every bone as a node)
			}
			if slices.ContainsFunc(comp, func(b int) bool { return joined[b] }) {
				keep = append(keep, comp...)
			} else {
				pieces = append(pieces, comp)
			}
		}
		if len(pieces) == 0 || len(keep) < minPartBones {
			continue
		}
		score := 0.0 // the weight of the lightest of the part kept and the pieces
		for _, b := range keep {
			score += sum[b]
		}
		for _, p := range pieces {
			w := 0.0
			for _, b := range p {
				w += sum[b]
			}
			if len(p) < minPartBones {
				score = -1
				break
			}
			score = min(score, w)
		}
		if score > bestScore {
			best, bestScore, bestKeep, bestPieces = c, score, keep, pieces
		}
	}
	if best < 0 {
		*sets, *refs = append(*sets, bones), append(*refs, parent)
		return
	}
	slices.Sort(bestKeep)
	a.splitPart(bestKeep, parent, sum, sets, refs)
	for _, p := range bestPieces {
		a.splitPart(p, best, sum, sets, refs)
	}
}

// splitBone returns the cut node at which Components splits the mesh: the
// one whose removal leaves the most even split, measured by the weight
// sum of the second-largest piece; ties go to the larger own weight sum.
func (a *Analysis) splitBone(sum []float64) int {
	best, bestScore := -1, [2]float64{}
	for _, c := range a.CutNodes {
		var pieces []float64
		for _, s := range componentsWithout(len(sum), a.BoneGraph, c) {
			w := 0.0
			for _, b := range s {
				w += sum[b]
			}
			pieces = append(pieces, w)
		}
		slices.Sort(pieces)
		score := [2]float64{pieces[len(pieces)-2], sum[c]}
		if best < 0 || score[0] > bestScore[0] || score[0] == bestScore[0] && score[1] > bestScore[1] {
			best, bestScore = c, score
		}
	}
	return best
}

// inputFigures measures the input frames at the figures' sample, unless
// Opts.Figures gives them: the 99th percentile of the per-frame largest
// vertex acceleration ‖v(x+1) − 2v(x) + v(x−1)‖, and the largest relative
// change of an edge's length from the rest pose. It also keeps the
// sampled edges' lengths at every input frame in the model's pose, which
// the strain figure compares with.
func (a *Analysis) inputFigures() {
	m := a.Model
	a.restLen = edgeLengths(nil, a.figRest, a.edges)
	mean := 0.0
	for _, l := range a.restLen {
		mean += l / float64(len(a.restLen))
	}
	a.restDen = make([]float64, len(a.restLen))
	for k, l := range a.restLen {
		a.restDen[k] = max(l, sliver*mean)
	}
	a.inputPos = make([][]mgl64.Vec3, m.NumFrames())
	a.inputLen = make([][]float64, m.NumFrames())
	for x, bones := range m.Bones {
		a.inputPos[x] = a.posed(nil, bones)
		a.inputLen[x] = edgeLengths(nil, a.inputPos[x], a.edges)
	}
	if f := a.Opts.Figures; f != nil {
		a.Accel99, a.EdgeMax = f.Accel99, f.EdgeMax
		return
	}
	in := make([][]mgl64.Vec3, len(m.Input))
	for x, f := range m.Input {
		in[x] = make([]mgl64.Vec3, len(a.figVerts))
		for k, v := range a.figVerts {
			in[x][k] = f[v]
		}
	}
	var acc []float64
	for x := 1; x+1 < len(in); x++ {
		acc = append(acc, maxAcceleration(in[x-1], in[x], in[x+1]))
	}
	slices.Sort(acc)
	a.Accel99 = acc[min(len(acc)-1, int(math.Ceil(0.99*float64(len(acc))))-1)]
	var lens []float64
	for _, f := range in {
		lens = edgeLengths(lens, f, a.edges)
		a.EdgeMax = max(a.EdgeMax, a.edgeChange(lens))
	}
}

// maxAcceleration returns maxᵢ ‖c[i] − 2b[i] + a[i]‖.
func maxAcceleration(a, b, c []mgl64.Vec3) float64 {
	m := 0.0
	a, c = a[:len(b)], c[:len(b)]
	for i := range b {
		x := c[i][0] - 2*b[i][0] + a[i][0]
		y := c[i][1] - 2*b[i][1] + a[i][1]
		z := c[i][2] - 2*b[i][2] + a[i][2]
		if d := x*x + y*y + z*z; d > m {
			m = d
		}
	}
	return math.Sqrt(m)
}

// edgeLengths writes the lengths of edges at positions pos into dst
// (grown as needed) and returns it.
func edgeLengths(dst []float64, pos []mgl64.Vec3, edges [][2]int32) []float64 {
	dst = slices.Grow(dst[:0], len(edges))[:len(edges)]
	for k, e := range edges {
		p, q := &pos[e[0]], &pos[e[1]]
		x, y, z := p[0]-q[0], p[1]-q[1], p[2]-q[2]
		dst[k] = math.Sqrt(x*x + y*y + z*z)
	}
	return dst
}

// sliver is the fraction of the mean rest edge length below which an
// edge's rest length is taken as that fraction: meshes such as the horse
// have hundreds of edges a thousandth of the diagonal long, whose relative
// change is noise (tenfold in the input itself).
const sliver = 0.1

// edgeChange returns the largest |ℓₑ − ℓₑ⁰| / max(ℓₑ⁰, 0.1·ℓ̄⁰) over the
// sampled edges, of lengths lens (ℓ̄⁰ the mean rest length).
func (a *Analysis) edgeChange(lens []float64) float64 {
	m := 0.0
	rest, den := a.restLen[:len(lens)], a.restDen[:len(lens)]
	for k, l := range lens {
		if d := math.Abs(l-rest[k]) / den[k]; d > m {
			m = d
		}
	}
	return m
}

// newPart analyses the bones of one part in the frame of bone ref: the
// local-frame positions (Eq. 2), their reduced coordinates (Eq. 3-4), the
// transition costs (Eq. 5-6), the candidate transitions with their pose
// distances over its figure vertices idx (poseSample), and the key
// vertices (Section 3.3).
func newPart(ctx context.Context, a *Analysis, adj *meshgraph.Adjacency, ref int, bones []int, idx []int) (*Part, error) {
	m := a.Model
	n := m.NumFrames()
	p := &Part{Reference: ref, Bones: bones, n: n, MinJump: a.Opts.MinJump}
	// Local-frame bone positions and their 6-vectors: translation over the
	// bounding-box diagonal (so that it is as dimensionless as the
	// rotation's radians) and the axis-angle vector, unwrapped along time.
	p.local = make([][]Affine, n)
	p.coords = make([][]float64, n)
	rows := 6 * len(bones)
	A := mat.NewDense(max(rows, 1), n, nil)
	prevLog := make([]mgl64.Vec3, len(bones))
	for x := range n {
		r := m.Bones[x][ref]
		rt := r.R.Transpose()
		p.local[x] = make([]Affine, len(bones))
		p.coords[x] = make([]float64, 6*len(bones))
		for c, b := range bones {
			xb := m.Bones[x][b]
			l := Affine{R: rt.Mul3(xb.R), T: rt.Mul3x1(xb.T.Sub(r.T))}
			p.local[x][c] = l
			w := rotation.Log(l.R)
			if x > 0 {
				w = unwrap(prevLog[c], w)
			}
			prevLog[c] = w
			copy(p.coords[x][6*c:], w[:])
			copy(p.coords[x][6*c+3:], l.T[:])
			for e := range 3 {
				A.Set(6*c+e, x, l.T[e]/a.Diagonal)
				A.Set(6*c+3+e, x, w[e])
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// q = S·Vᵀ truncated at Rank·σ₁.
	q := make([][]float64, n)
	if rows > 0 {
		var svd mat.SVD
		if !svd.Factorize(A, mat.SVDThin) {
			return nil, errors.New("synth: the SVD of the bone coordinates did not converge")
		}
		sv := svd.Values(nil)
		for p.Rank < len(sv) && sv[p.Rank] >= a.Opts.Rank*sv[0] && sv[p.Rank] > 0 {
			p.Rank++
		}
		var v mat.Dense
		svd.VTo(&v)
		for x := range n {
			q[x] = make([]float64, p.Rank)
			for c := range p.Rank {
				q[x][c] = sv[c] * v.At(x, c)
			}
		}
	} else {
		for x := range q {
			q[x] = []float64{}
		}
	}
	// Velocities q̇ᵢ = qᵢ − qᵢ₋₁ and the reference bone's motion rᵢ
	// (Eq. 6): its position at frame i−1 in its own frame at frame i.
	dq := make([][]float64, n)
	r6 := make([][6]float64, n)
	var maxQ, maxDQ, maxR float64
	for x := 1; x < n; x++ {
		dq[x] = make([]float64, p.Rank)
		for c := range dq[x] {
			dq[x][c] = q[x][c] - q[x-1][c]
		}
		cur, prev := m.Bones[x][ref], m.Bones[x-1][ref]
		rt := cur.R.Transpose()
		t := rt.Mul3x1(prev.T.Sub(cur.T)).Mul(1 / a.Diagonal)
		w := rotation.Log(rt.Mul3(prev.R))
		r6[x] = [6]float64{t[0], t[1], t[2], w[0], w[1], w[2]}
		maxQ = max(maxQ, sq(q[x]))
		maxDQ = max(maxDQ, sq(dq[x]))
		maxR = max(maxR, sq(r6[x][:]))
	}
	p.Alpha, p.Beta = a.Opts.Alpha, a.Opts.Beta
	if p.Alpha <= 0 {
		p.Alpha = ratio(maxQ, maxDQ)
	}
	if p.Beta <= 0 {
		p.Beta = ratio(maxQ, maxR)
	}
	p.cost = make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i == 0 || j == 0 {
				p.cost[i*n+j] = math.Inf(1)
				continue
			}
			d := dist2(q[i], q[j]) + p.Alpha*dist2(dq[i], dq[j]) + p.Beta*dist2(r6[i][:], r6[j][:])
			p.cost[i*n+j] = d
		}
	}
	col := make(map[int]int, len(bones))
	for c, b := range bones {
		col[b] = c
	}
	p.centroid = make([]mgl64.Vec3, len(bones))
	wsum := make([]float64, len(bones))
	for i, l := range m.Weights {
		for _, in := range l {
			if c, ok := col[in.Bone]; ok {
				w := in.Weight * a.area[i]
				p.centroid[c] = p.centroid[c].Add(m.Rest[i].Mul(w))
				wsum[c] += w
			}
		}
	}
	for c := range p.centroid {
		if wsum[c] > 0 {
			p.centroid[c] = p.centroid[c].Mul(1 / wsum[c])
		}
	}
	p.poses = &poseSample{frames: a.inputPos, idx: idx}
	p.Step = p.poses.step()
	p.candidates()
	p.chooseDefault()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var err error
	if p.keys, err = newKeys(a, adj, p); err != nil {
		return nil, err
	}
	return p, nil
}

// ratio returns a/b, or 1 where b is 0 (a term that never varies needs no
// weight) or a is 0 (no pose term to balance against).
func ratio(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 1
	}
	return a / b
}

func sq(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// unwrap returns the axis-angle vector of the rotation w that is nearest
// to prev: w itself or w ± 2π along its axis. Log returns angles in
// [0, π], so a rotation turning through π flips its vector; unwrapping
// keeps a time series of them continuous for blending and for the SVD.
//
// The candidates are w and cₖ = (w/θ)(θ + 2πk), k = −2 … 2, θ = ‖w‖; the
// first of least distance ‖cₖ − prev‖ wins. Since
// ‖cₖ − prev‖ ≥ |θ + 2πk − a|, a = (w/θ)·prev, a candidate whose bound
// exceeds the best distance so far by more than any rounding (10⁻⁹ of the
// magnitudes, against errors near 10⁻¹⁵) cannot win and is not measured;
// distances are compared squared first, and their square roots (which
// rounding can make equal) only where the square is less. The choice is
// the one measuring all five would make, bit for bit, and the usual case,
// prev near w, takes one square root.
func unwrap(prev, w mgl64.Vec3) mgl64.Vec3 {
	unwrapTo((*[3]float64)(&w), (*[3]float64)(&prev))
	return w
}

// unwrapTo is unwrap in place, *w becoming the result: the kernel, on
// scalars (3-vectors passed by value go through the stack on amd64).
func unwrapTo(w, prev *[3]float64) {
	wx, wy, wz, px, py, pz := w[0], w[1], w[2], prev[0], prev[1], prev[2]
	th := math.Sqrt(wx*wx + wy*wy + wz*wz)
	if th == 0 {
		return
	}
	inv := 1 / th
	ax, ay, az := wx*inv, wy*inv, wz*inv
	a := ax*px + ay*py + az*pz
	pl := math.Abs(px) + math.Abs(py) + math.Abs(pz) // ≥ ‖prev‖
	dx, dy, dz := wx-px, wy-py, wz-pz
	bestSq, bestD := dx*dx+dy*dy+dz*dz, -1.0 // bestD = √bestSq once needed
	for k := -2; k <= 2; k++ {
		s := th + 2*math.Pi*float64(k)
		if u := math.Abs(s-a) - 1e-9*(1+math.Abs(s)+pl); u > 0 && u*u > bestSq*(1+1e-9) {
			continue
		}
		cx, cy, cz := ax*s, ay*s, az*s
		dx, dy, dz := cx-px, cy-py, cz-pz
		sq := dx*dx + dy*dy + dz*dz
		if sq >= bestSq {
			continue // √ is monotone: ‖c − prev‖ ≥ the best
		}
		if bestD < 0 {
			bestD = math.Sqrt(bestSq)
		}
		if d := math.Sqrt(sq); d < bestD {
			w[0], w[1], w[2], bestSq, bestD = cx, cy, cz, sq, d
		}
	}
}

// vertexAreas returns each vertex's share of the rest surface, a third of
// the area of each of its triangles, so that sums over vertices weighted
// by it approximate integrals over the surface whatever the mesh's
// resolution. Without triangles, or where the surface has no area, every
// vertex weighs 1.
func vertexAreas(rest []mgl64.Vec3, triangles [][3]int) []float64 {
	area := make([]float64, len(rest))
	total := 0.0
	for _, t := range triangles {
		a := rest[t[1]].Sub(rest[t[0]]).Cross(rest[t[2]].Sub(rest[t[0]])).Len() / 6
		for _, v := range t {
			area[v] += a
		}
		total += 3 * a
	}
	if !(total > 0) {
		for i := range area {
			area[i] = 1
		}
	}
	return area
}
