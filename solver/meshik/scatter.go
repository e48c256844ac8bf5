package meshik

import "slices"

// scatter is the plan by which prepare applies Ǧᵀ to the triangles' rows
// as it makes them, chunk by chunk (scatterChunk triangles), instead of
// writing every row to memory and gathering them per vertex afterwards:
// at 135k vertices and 23 weights the rows are 310 MB, written once and
// read three times (once per corner) by the gather, which took a third of
// a Gauss-Newton iteration.
//
// A chunk adds its triangles' contributions Ǧ_jᵀ·rows_j to the rows of
// the vertices it touches (its entries), in triangle order. Chunks that
// share a vertex (on the seams between them) must not run at the same
// time, so the chunks are coloured (greedily, in chunk order) such that no
// two of one colour share a vertex, and prepare runs them colour by
// colour ("waves"), each wave's chunks in parallel. A vertex's row is
// cleared by the first chunk that touches it, in wave order, and sums the
// contributions of its chunks in wave order, then triangle order. A first
// version kept one partial row per chunk for every seam vertex and merged
// them afterwards: on the 135k horse 55,219 partial rows of 608 bytes for
// 26,928 seam vertices, written, read back and added every iteration.
// Everything is fixed by the mesh: the sums do not depend on the number of
// cores or on scheduling.
type scatter struct {
	// Chunk c's entries are [entPtr[c], entPtr[c+1]); entry e is vertex
	// entVert[e]; corner q of triangle j is entry entPtr[j/scatterChunk] +
	// corner[3j + q].
	entPtr  []int32
	entVert []int32
	corner  []int32
	// first[e] reports whether entry e is its vertex's first in wave
	// order: the one that clears the row.
	first []bool
	// The waves: wave i runs chunks waves[wavePtr[i]:wavePtr[i+1]], in
	// increasing order.
	waves   []int32
	wavePtr []int32
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
	for c := 0; c < nc; c++ {
		lo, hi := c*scatterChunk, min(m, (c+1)*scatterChunk)
		start := int32(len(sc.entVert))
		for j := lo; j < hi; j++ {
			for q, v := range triangles[j] {
				if local[v] < 0 {
					local[v] = int32(len(sc.entVert)) - start
					sc.entVert = append(sc.entVert, int32(v))
				}
				sc.corner[3*j+q] = local[v]
			}
		}
		for _, v := range sc.entVert[start:] {
			local[v] = -1
		}
		sc.entPtr[c+1] = int32(len(sc.entVert))
	}
	// The chunks touching each vertex, in chunk order.
	vptr := make([]int32, n+1)
	for _, v := range sc.entVert {
		vptr[v+1]++
	}
	for u := 0; u < n; u++ {
		if vptr[u+1] == 0 {
			sc.lone = append(sc.lone, int32(u))
		}
		vptr[u+1] += vptr[u]
	}
	vchunk := make([]int32, len(sc.entVert))
	next := slices.Clone(vptr[:n])
	for c := 0; c < nc; c++ {
		for _, v := range sc.entVert[sc.entPtr[c]:sc.entPtr[c+1]] {
			vchunk[next[v]] = int32(c)
			next[v]++
		}
	}
	// Greedy colouring: each chunk takes the least colour none of the
	// earlier chunks it shares a vertex with has.
	color := make([]int32, nc)
	var used []bool
	ncolor := int32(0)
	for c := 0; c < nc; c++ {
		clear(used)
		for _, v := range sc.entVert[sc.entPtr[c]:sc.entPtr[c+1]] {
			for _, d := range vchunk[vptr[v]:vptr[v+1]] {
				if d < int32(c) {
					used[color[d]] = true
				}
			}
		}
		k := int32(slices.Index(used, false))
		if k < 0 {
			k = ncolor
			ncolor++
			used = append(used, false)
		}
		color[c] = k
	}
	sc.wavePtr = make([]int32, ncolor+1)
	for _, k := range color {
		sc.wavePtr[k+1]++
	}
	for k := int32(0); k < ncolor; k++ {
		sc.wavePtr[k+1] += sc.wavePtr[k]
	}
	sc.waves = make([]int32, nc)
	fill := slices.Clone(sc.wavePtr[:ncolor])
	for c, k := range color {
		sc.waves[fill[k]] = int32(c)
		fill[k]++
	}
	// The entry that clears each vertex's row: its chunk's colour is the
	// least among the vertex's chunks (unique: they share the vertex).
	sc.first = make([]bool, len(sc.entVert))
	for c := 0; c < nc; c++ {
		for e := sc.entPtr[c]; e < sc.entPtr[c+1]; e++ {
			v := sc.entVert[e]
			least := true
			for _, d := range vchunk[vptr[v]:vptr[v+1]] {
				least = least && color[d] >= color[c]
			}
			sc.first[e] = least
		}
	}
	return sc
}
