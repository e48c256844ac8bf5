package collide

import (
	"math"
	"math/bits"
	"slices"

	"gallop/solver/bvh"
)

// Grid is the broad phase between many groups of triangles (an ensemble's
// flags and rope, each a Mesh): given the groups' bounding boxes each
// frame, it returns the pairs of groups whose boxes overlap, the only
// pairs worth a MeshPairs or MeshesIntersect. The zero value is ready to
// use; a Grid keeps its scratch memory from call to call, so a call per
// frame does not allocate once the sizes have settled. A Grid is not safe
// for concurrent use.
//
// Each box is entered into the cells of a uniform grid that it overlaps,
// and boxes are compared only within a cell (Ericson, Real-Time Collision
// Detection, §7.1). The cell size h is the mean, over the boxes, of their
// largest side (1 if every box is a point), so a typical box covers one or
// two cells per axis. Cells are numbered from the boxes' common lower
// corner, up to 2ᵇ per axis with 3b + ⌈log₂ #boxes⌉ ≤ 64 (b = 18 for a
// thousand boxes); farther cells merge with the last, which costs time but
// never a pair. The (cell, box) entries, packed into integers, are sorted,
// and a pair sharing several cells is reported only from the cell that
// holds the lower corner of the two boxes' intersection. A box that would
// cover more than 64 cells (or has an infinite side) is compared with
// every other box instead.
type Grid struct {
	entries []uint64 // cell << boxBits | box, for every cell of every box
	state   []uint8  // per box: skip, inGrid or large
}

const (
	skip   = iota // empty or NaN: overlaps nothing
	inGrid        // entered into the grid's cells
	large         // compared with every box

	maxBoxCells = 64
)

// Pairs appends to dst every pair {i, j}, i < j, of indices into boxes of
// two non-empty boxes that overlap (bvh.AABB.Overlaps: closed boxes, so
// boxes that only touch overlap), sorted by i and then j, and returns the
// extended slice. Empty boxes (bvh.AABB.Empty) and boxes with a NaN
// coordinate pair with nothing. The result is that of comparing all pairs;
// only the time differs, about linear in the number of boxes and pairs for
// boxes of similar sizes.
func (g *Grid) Pairs(dst [][2]int, boxes []bvh.AABB) [][2]int {
	start := len(dst)
	n := len(boxes)
	g.state = slices.Grow(g.state[:0], n)[:n]
	g.entries = g.entries[:0]

	// Classify the boxes; find the cell size and the grid's origin.
	inf := math.Inf(1)
	origin := [3]float64{inf, inf, inf}
	sum, count := 0.0, 0
	for i := range boxes {
		b := &boxes[i]
		side := 0.0
		for k := range 3 {
			side = max(side, b.Max[k]-b.Min[k])
		}
		switch {
		case b.Empty() || hasNaN(b):
			g.state[i] = skip
		case side > math.MaxFloat64:
			g.state[i] = large
		default:
			g.state[i] = inGrid
			sum += side
			count++
			for k := range 3 {
				origin[k] = min(origin[k], b.Min[k])
			}
		}
	}
	h := 1.0 // when every box is a point
	if count > 0 && sum > 0 {
		h = sum / float64(count)
		if h > math.MaxFloat64 {
			h = math.MaxFloat64
		}
	}

	// Enter the boxes into their cells.
	boxBits := bits.Len(uint(n))
	axisBits := (64 - boxBits) / 3
	maxCell := float64(uint64(1)<<axisBits - 1)
	cell := func(x float64, k int) uint64 {
		return uint64(min(max(math.Floor((x-origin[k])/h), 0), maxCell))
	}
	for i := range boxes {
		if g.state[i] != inGrid {
			continue
		}
		b := &boxes[i]
		var lo, hi [3]uint64
		cells := uint64(1)
		for k := range 3 {
			lo[k], hi[k] = cell(b.Min[k], k), cell(b.Max[k], k)
			cells *= hi[k] - lo[k] + 1
		}
		if cells > maxBoxCells {
			g.state[i] = large
			continue
		}
		for z := lo[2]; z <= hi[2]; z++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for x := lo[0]; x <= hi[0]; x++ {
					key := x | y<<axisBits | z<<(2*axisBits)
					g.entries = append(g.entries, key<<boxBits|uint64(i))
				}
			}
		}
	}
	slices.Sort(g.entries)

	// Pairs within each cell, reported from the cell of the lower corner
	// of their intersection.
	mask := uint64(1)<<boxBits - 1
	for s := 0; s < len(g.entries); {
		key := g.entries[s] >> boxBits
		e := s + 1
		for e < len(g.entries) && g.entries[e]>>boxBits == key {
			e++
		}
		for p := s; p < e; p++ {
			i := int(g.entries[p] & mask)
			for q := p + 1; q < e; q++ {
				j := int(g.entries[q] & mask)
				a, b := &boxes[i], &boxes[j]
				if !a.Overlaps(*b) {
					continue
				}
				corner := cell(max(a.Min[0], b.Min[0]), 0) |
					cell(max(a.Min[1], b.Min[1]), 1)<<axisBits |
					cell(max(a.Min[2], b.Min[2]), 2)<<(2*axisBits)
				if corner == key {
					dst = append(dst, [2]int{i, j})
				}
			}
		}
		s = e
	}

	// Large boxes against every other box.
	for l := range boxes {
		if g.state[l] != large {
			continue
		}
		for j := range boxes {
			if j == l || g.state[j] == skip || g.state[j] == large && j < l {
				continue
			}
			if boxes[l].Overlaps(boxes[j]) {
				dst = append(dst, [2]int{min(l, j), max(l, j)})
			}
		}
	}

	slices.SortFunc(dst[start:], func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return dst
}

// hasNaN reports whether a coordinate of b is NaN.
func hasNaN(b *bvh.AABB) bool {
	for k := range 3 {
		if b.Min[k] != b.Min[k] || b.Max[k] != b.Max[k] {
			return true
		}
	}
	return false
}
