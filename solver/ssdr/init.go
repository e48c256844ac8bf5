package ssdr

import (
	"context"
	"math"
	"slices"

	"gallop/internal/parallel"
)

// errorTo returns Σₜ ‖Rⱼᵗpᵢ + Tⱼᵗ − vᵢᵗ‖², vertex i's error when bound to
// bone j alone.
func (s *solver) errorTo(i, j int) float64 {
	p := s.rest[i]
	m := s.m[j*s.t : (j+1)*s.t]
	v := s.vt[i*s.t : (i+1)*s.t]
	e := 0.0
	for f := range m {
		x, y := &m[f], &v[f]
		d0 := x.R[0]*p[0] + x.R[3]*p[1] + x.R[6]*p[2] + x.T[0] - y[0]
		d1 := x.R[1]*p[0] + x.R[4]*p[1] + x.R[7]*p[2] + x.T[1] - y[1]
		d2 := x.R[2]*p[0] + x.R[5]*p[1] + x.R[8]*p[2] + x.T[2] - y[2]
		e += d0*d0 + d1*d1 + d2*d2
	}
	return e
}

// initialize clusters the vertices into exactly B rigid groups (see the
// package comment) and sets the iterate to rigid weights and the groups'
// transforms.
func (s *solver) initialize(ctx context.Context) error {
	s.m = make([]Transform, s.b*s.t)
	label := make([]int32, s.n)
	nb := 1
	s.fitClusters(label, nb)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		prev := nb
		nb = s.split(label, nb)
		for range s.opts.InitIterations {
			s.fitClusters(label, nb)
			s.relabel(label, nb)
			nb = s.prune(label, nb)
		}
		if nb >= s.b || nb <= prev {
			break
		}
	}
	// Splitting stalled (or pruning killed clusters): split the cluster
	// of largest error at its worst vertex until there are B.
	for ; nb < s.b; nb++ {
		s.forceSplit(label, nb)
	}
	s.fitClusters(label, nb)
	s.setLabels(label)
	return nil
}

// clusterSums caches, per frame f and cluster j, the top rows
// Σ_{i∈Cⱼ} vᵢᶠ[pᵢ;1]ᵀ of the clusters' absolute-orientation sums, and the
// labels they were summed for: between two fits only the vertices whose
// label changed are moved from one sum to another, and relabelling
// changes few labels once a round has settled.
type clusterSums struct {
	label []int32       // the labels summed; nil when the sums are stale
	top   [][12]float64 // top[f*B+j]
}

// fitClusters sets the transforms of bones [0, nb) to the rigid fits of
// their clusters in every frame; a bone without vertices gets the
// identity.
func (s *solver) fitClusters(label []int32, nb int) {
	cs := &s.sums
	var moved []int32
	if cs.label != nil {
		for i, j := range label {
			if j != cs.label[i] {
				moved = append(moved, int32(i))
			}
		}
	}
	full := cs.label == nil || len(moved) > s.n/4
	if full {
		if cs.top == nil {
			cs.top = make([][12]float64, s.t*s.b)
		}
		clear(cs.top)
	}
	// The bottom rows Σ[pᵢ;1]ᵀ do not depend on the frame.
	bottom := make([][4]float64, nb)
	for i, j := range label {
		if j >= 0 {
			p := s.rest[i]
			bottom[j][0] += p[0]
			bottom[j][1] += p[1]
			bottom[j][2] += p[2]
			bottom[j][3]++
		}
	}
	parallel.For(s.t, func(f int) {
		top := cs.top[f*s.b : (f+1)*s.b]
		v := s.frames[f]
		add := func(i int, j int32, sign float64) {
			if j < 0 {
				return
			}
			addOuterTop(&top[j], sign, v[i], s.rest[i])
		}
		if full {
			for i, j := range label {
				add(i, j, 1)
			}
		} else {
			for _, i := range moved {
				add(int(i), cs.label[i], -1)
				add(int(i), label[i], 1)
			}
		}
		for j := range nb {
			var a cov4
			copy(a[:12], top[j][:])
			copy(a[12:], bottom[j][:])
			x := &s.m[j*s.t+f]
			*x = Transform{R: identity3}
			a.fit(x)
		}
	})
	cs.label = append(cs.label[:0], label...)
}

// clusterStats returns, per cluster of [0, nb): its size, its error (the
// sum over its vertices of √errorTo) and the seed at which to split it,
// Dem Bones' choice: the vertex maximising |(eᵢ − min e)·(dᵢ − min d)|,
// with dᵢ the rest distance to the cluster's centroid and eᵢ = √errorTo.
func (s *solver) clusterStats(label []int32, nb int) (size []int, ce []float64, seed []int) {
	size = make([]int, nb)
	cent := make([][3]float64, nb)
	for i, j := range label {
		size[j]++
		for c := range 3 {
			cent[j][c] += s.rest[i][c]
		}
	}
	for j := range nb {
		if size[j] > 0 {
			for c := range 3 {
				cent[j][c] /= float64(size[j])
			}
		}
	}
	d, e := make([]float64, s.n), make([]float64, s.n)
	parallel.Chunks(s.n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			j := label[i]
			p := s.rest[i]
			d[i] = math.Sqrt(sq(p[0]-cent[j][0]) + sq(p[1]-cent[j][1]) + sq(p[2]-cent[j][2]))
			e[i] = math.Sqrt(s.errorTo(i, int(j)))
		}
	})
	minD, minE := make([]float64, nb), make([]float64, nb)
	for j := range nb {
		minD[j], minE[j] = math.Inf(1), math.Inf(1)
	}
	ce = make([]float64, nb)
	for i, j := range label {
		minD[j], minE[j] = min(minD[j], d[i]), min(minE[j], e[i])
		ce[j] += e[i]
	}
	seed = make([]int, nb)
	best := make([]float64, nb)
	for j := range seed {
		seed[j] = -1
	}
	for i, j := range label {
		v := math.Abs((e[i] - minE[j]) * (d[i] - minD[j]))
		if seed[j] < 0 || v > best[j] {
			seed[j], best[j] = i, v
		}
	}
	return size, ce, seed
}

func sq(x float64) float64 { return x * x }

// split is one LBG round: every cluster with more than 6 vertices and an
// error above 1% of the mean gives its seed and the seed's one-ring to a
// new cluster, while there are fewer than B. It returns the new count.
func (s *solver) split(label []int32, nb int) int {
	size, ce, seed := s.clusterStats(label, nb)
	avg := 0.0
	for _, c := range ce {
		avg += c
	}
	avg /= float64(nb)
	count := nb
	for j := range nb {
		if count < s.b && size[j] > 6 && ce[j] > avg/100 {
			i := seed[j]
			label[i] = int32(count)
			for _, k := range s.adj.Neighbours(i) {
				label[k] = int32(count)
			}
			count++
		}
	}
	return count
}

// forceSplit makes cluster nb out of the cluster of largest error that has
// at least 2 vertices: its seed and as much of the seed's one-ring within
// it as leaves it one vertex.
func (s *solver) forceSplit(label []int32, nb int) {
	size, ce, seed := s.clusterStats(label, nb)
	pick := -1
	for j := range nb {
		if size[j] >= 2 && (pick < 0 || ce[j] > ce[pick]) {
			pick = j
		}
	}
	// pick ≥ 0: nb < B ≤ N, so some cluster has 2 or more vertices.
	i := seed[pick]
	label[i] = int32(nb)
	left := size[pick] - 1
	for _, k := range s.adj.Neighbours(i) {
		if left > 1 && label[k] == int32(pick) {
			label[k] = int32(nb)
			left--
		}
	}
}

// prune drops clusters of fewer than 3 vertices, renumbers the others
// (and their transforms) in order, relabels if any was dropped, and
// returns the new count.
func (s *solver) prune(label []int32, nb int) int {
	size := make([]int, nb)
	for _, j := range label {
		size[j]++
	}
	id := make([]int32, nb)
	count := 0
	for j := range nb {
		if size[j] < 3 {
			id[j] = -1
			continue
		}
		id[j] = int32(count)
		copy(s.m[count*s.t:(count+1)*s.t], s.m[j*s.t:(j+1)*s.t])
		count++
	}
	if count == nb {
		return nb
	}
	for i, j := range label {
		label[i] = id[j]
	}
	s.sums.label = nil // the clusters were renumbered
	s.relabel(label, count)
	return count
}

// relabel reassigns every vertex to a bone of [0, nb) by growing each
// cluster over the mesh from its best-fitting vertex, cheapest vertex
// first, the cost of a vertex being its error bound to the growing bone
// (Dem Bones' computeLabel: a vertex is queued again only with a lower
// cost). Vertices no cluster reaches (other connected pieces) take the
// bone that fits them best. label[i] = -1 marks a vertex without a
// cluster.
//
// The errors the growth needs, of each vertex bound to its own bone and
// to the bones of its neighbours, are computed beforehand on every core;
// the growth itself, a priority queue, runs on one.
func (s *solver) relabel(label []int32, nb int) {
	old := slices.Clone(label)
	own := make([]float64, s.n)
	// cross[q], for the adjacency slot q of vertex i and neighbour k: the
	// error of i bound to old[k], NaN when that is i's own bone or none.
	cross := make([]float64, len(s.adj.Nbr))
	parallel.Chunks(s.n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			j := old[i]
			if j >= 0 {
				own[i] = s.errorTo(i, int(j))
			}
			first := s.adj.Start[i]
		slots:
			for q := first; q < s.adj.Start[i+1]; q++ {
				cross[q] = math.NaN()
				lk := old[s.adj.Nbr[q]]
				if lk < 0 || lk == j {
					continue
				}
				for r := first; r < q; r++ {
					if old[s.adj.Nbr[r]] == lk {
						cross[q] = cross[r]
						continue slots
					}
				}
				cross[q] = s.errorTo(i, int(lk))
			}
		}
	})
	// errorOf returns vertex k's error bound to bone j.
	errorOf := func(k int, j int32) float64 {
		if old[k] == j {
			return own[k]
		}
		for q := s.adj.Start[k]; q < s.adj.Start[k+1]; q++ {
			if old[s.adj.Nbr[q]] == j {
				return cross[q]
			}
		}
		return s.errorTo(k, int(j))
	}
	seed := make([]int, nb)
	for j := range seed {
		seed[j] = -1
	}
	for i, j := range old {
		if j >= 0 && (seed[j] < 0 || own[i] < own[seed[j]]) {
			seed[j] = i
		}
	}
	var h labelHeap
	minE := make([]float64, s.n)
	for i := range minE {
		minE[i] = math.Inf(1)
	}
	for j, i := range seed {
		if i >= 0 {
			h.push(labelItem{own[i], int32(i), int32(j)})
			minE[i] = own[i]
		}
	}
	done := make([]bool, s.n)
	for len(h) > 0 {
		top := h.pop()
		i := int(top.i)
		if done[i] {
			continue
		}
		done[i] = true
		label[i] = top.j
		for _, k := range s.adj.Neighbours(i) {
			if done[k] {
				continue
			}
			if e := errorOf(int(k), top.j); e < minE[k] {
				minE[k] = e
				h.push(labelItem{e, k, top.j})
			}
		}
	}
	parallel.Chunks(s.n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if done[i] {
				continue
			}
			best, be := 0, math.Inf(1)
			for j := range nb {
				if e := s.errorTo(i, j); e < be {
					best, be = j, e
				}
			}
			label[i] = int32(best)
		}
	})
}

type labelItem struct {
	e    float64
	i, j int32
}

func (x labelItem) less(y labelItem) bool {
	if x.e != y.e {
		return x.e < y.e
	}
	if x.i != y.i {
		return x.i < y.i
	}
	return x.j < y.j
}

// labelHeap is a binary min-heap of labelItems by error, then vertex, then
// bone, so that ties pop in a fixed order.
type labelHeap []labelItem

func (h *labelHeap) push(x labelItem) {
	*h = append(*h, x)
	a := *h
	c := len(a) - 1
	for c > 0 {
		p := (c - 1) / 2
		if !a[c].less(a[p]) {
			break
		}
		a[c], a[p] = a[p], a[c]
		c = p
	}
}

func (h *labelHeap) pop() labelItem {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for p := 0; ; {
		c := 2*p + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].less(a[c]) {
			c++
		}
		if !a[c].less(a[p]) {
			break
		}
		a[c], a[p] = a[p], a[c]
		p = c
	}
	*h = a
	return top
}
