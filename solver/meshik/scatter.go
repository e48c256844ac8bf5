package meshik

// scatter is the plan by which prepare applies Ǧᵀ to the triangles' rows
// as it makes them, chunk by chunk (scatterChunk triangles), instead of
// writing every row to memory and gathering them per vertex afterwards:
// at 135k vertices and 23 weights the rows are 310 MB, written once and
// read three times (once per corner) by the gather, which took a third of
// a Gauss-Newton iteration.
//
// A chunk sums its triangles' contributions Ǧ_jᵀ·rows_j into a small
// accumulator per vertex it touches (its entries), in triangle order. A
// vertex all of whose triangles lie in one chunk gets that sum directly;
// the others ("shared", on the chunks' seams) get one partial sum per
// chunk they touch, kept in the spill storage, and add them in chunk
// order afterwards. Everything is fixed by the mesh: the sums do not
// depend on the number of cores or on scheduling.
type scatter struct {
	// Chunk c's entries are [entPtr[c], entPtr[c+1]); entry e is vertex
	// entVert[e]; corner q of triangle j is entry entPtr[j/scatterChunk] +
	// corner[3j + q].
	entPtr  []int32
	entVert []int32
	corner  []int32
	// slot[e] is entry e's place in the spill storage, or −1 if its chunk
	// holds all its vertex's triangles.
	slot []int32
	// The shared vertices; vertex sharedVert[b]'s partial sums are the
	// slots [sharedPtr[b], sharedPtr[b+1]), in chunk order.
	sharedVert []int32
	sharedPtr  []int32
	// lone lists the vertices no triangle uses.
	lone []int32
}

// newScatter plans the chunked Ǧᵀ for triangles over n vertices (the
// solver's order).
func newScatter(n int, triangles [][3]int) *scatter {
	m := len(triangles)
	nc := (m + scatterChunk - 1) / scatterChunk
	sc := &scatter{entPtr: make([]int32, nc+1), corner: make([]int32, 3*m)}
	local := make([]int32, n) // vertex → its entry in the current chunk, −1
	for u := range local {
		local[u] = -1
	}
	chunks := make([]int32, n) // chunks touching each vertex
	for c := 0; c < nc; c++ {
		lo, hi := c*scatterChunk, min(m, (c+1)*scatterChunk)
		start := int32(len(sc.entVert))
		for j := lo; j < hi; j++ {
			for q, v := range triangles[j] {
				if local[v] < 0 {
					local[v] = int32(len(sc.entVert)) - start
					sc.entVert = append(sc.entVert, int32(v))
					chunks[v]++
				}
				sc.corner[3*j+q] = local[v]
			}
		}
		for _, v := range sc.entVert[start:] {
			local[v] = -1
		}
		sc.entPtr[c+1] = int32(len(sc.entVert))
	}
	// Slots: the shared vertices in vertex order, each one's entries in
	// chunk order (the order of entVert).
	first := make([]int32, n)
	for u := 0; u < n; u++ {
		if chunks[u] == 0 {
			sc.lone = append(sc.lone, int32(u))
		}
		if chunks[u] > 1 {
			first[u] = int32(len(sc.sharedPtr))
			sc.sharedVert = append(sc.sharedVert, int32(u))
			sc.sharedPtr = append(sc.sharedPtr, 0)
		}
	}
	sc.sharedPtr = append(sc.sharedPtr, 0)
	for b, u := range sc.sharedVert {
		sc.sharedPtr[b+1] = sc.sharedPtr[b] + chunks[u]
	}
	next := make([]int32, len(sc.sharedVert))
	sc.slot = make([]int32, len(sc.entVert))
	for e, v := range sc.entVert {
		if chunks[v] <= 1 {
			sc.slot[e] = -1
			continue
		}
		b := first[v]
		sc.slot[e] = sc.sharedPtr[b] + next[b]
		next[b]++
	}
	return sc
}

// numSlots returns the number of partial sums the shared vertices keep.
func (sc *scatter) numSlots() int { return int(sc.sharedPtr[len(sc.sharedPtr)-1]) }
