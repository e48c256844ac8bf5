package meshik

import (
	"math"
	"testing"
)

// TestVertexRowsMatchGather: the vertex rows Ǧᵀ·[D̃ | b̃] that prepare
// scatters chunk by chunk, wave by wave, equal the per-vertex gather of
// every triangle's rows, on a mesh of many chunks with constrained
// vertices.
func TestVertexRowsMatchGather(t *testing.T) {
	set := loadPoses(t, "lion-poses", 1, 2, 3, 4)
	s, err := New(set.ref.Positions, set.ref.Triangles, set.poses, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if waves := len(s.scatter.wavePtr) - 1; waves < 2 || s.m < 4*scatterChunk {
		t.Fatalf("the lion makes %d chunks in %d waves: too few to test the seams", (s.m+scatterChunk-1)/scatterChunk, waves)
	}
	if err := s.SetHandles(spreadHandles(set.ref)); err != nil {
		t.Fatal(err)
	}
	w := make([]float64, s.NumWeights())
	for i := range w {
		w[i] = 0.3 + 0.1*float64(i)
	}
	if err := s.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	bl := s.main
	l := bl.l
	cols := 3 * (l + 1)
	s.prepare(bl, true, true)
	hs := halfStride(l)
	got := make([]float64, s.n*cols) // vertex order
	for u := 0; u < s.n; u++ {
		r := s.sym.PivotOf(u)
		copy(got[u*cols:(u+1)*cols], s.half[r*hs:r*hs+cols])
	}

	// The reference: every triangle's rows, gathered per vertex.
	pw := padded(l + 2)
	rows := make([]float64, 6*s.m*pw)
	sc := getScratch(l)
	defer scratchPool.Put(sc)
	for j := 0; j < s.m; j++ {
		// The space's 3×3 derivatives projected, not its projected rows.
		bl.evalRange(s.frozen, s.fgrad, sc.t[:1], sc.dt[:l], j, j+1)
		out := rows[6*j*pw : 6*(j+1)*pw]
		projectRows(&s.hp[j], sc.dt[:l], out, pw)
		var cr corners
		s.cornersOf(j, &cr)
		s.triangleRows(j, &sc.t[0], &cr, l, out, pw, false)
	}
	worst, scale := 0.0, 0.0
	for u := 0; u < s.n; u++ {
		want := make([]float64, cols)
		if !s.fixed[u] {
			for p := s.incPtr[u]; p < s.incPtr[u+1]; p++ {
				j, c := int(s.incTri[p]), s.incCoef[p]
				for r := 0; r < 3; r++ {
					for k := 0; k <= l; k++ {
						want[r*(l+1)+k] += c[0]*rows[(6*j+2*r)*pw+k] + c[1]*rows[(6*j+2*r+1)*pw+k]
					}
				}
			}
		}
		for i, v := range want {
			worst = max(worst, math.Abs(got[u*cols+i]-v))
			scale = max(scale, math.Abs(v))
			if s.fixed[u] && got[u*cols+i] != 0 {
				t.Fatalf("constrained vertex %d has a non-zero row", u)
			}
		}
	}
	if worst > 1e-12*scale {
		t.Errorf("scattered vertex rows differ from the gather by %g (largest entry %g)", worst, scale)
	}
}

// TestScatterWaves checks the plan of the chunked Ǧᵀ on the lion: every
// chunk in one wave, no two chunks of a wave sharing a vertex, and every
// vertex that a triangle uses cleared by exactly one entry, in the
// earliest wave that touches it.
func TestScatterWaves(t *testing.T) {
	set := loadPoses(t, "lion-poses", 1, 2)
	s, err := New(set.ref.Positions, set.ref.Triangles, set.poses, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp := s.scatter
	nc := len(sp.entPtr) - 1
	wave := make([]int, nc)
	for i := range wave {
		wave[i] = -1
	}
	for i := 0; i+1 < len(sp.wavePtr); i++ {
		for _, c := range sp.waves[sp.wavePtr[i]:sp.wavePtr[i+1]] {
			if wave[c] >= 0 {
				t.Fatalf("chunk %d in waves %d and %d", c, wave[c], i)
			}
			wave[c] = i
		}
	}
	firstWave := make([]int, s.n) // the wave of each vertex's clearing entry
	seen := make(map[[2]int]bool) // (vertex, wave)
	for u := range firstWave {
		firstWave[u] = -1
	}
	for c := 0; c < nc; c++ {
		if wave[c] < 0 {
			t.Fatalf("chunk %d in no wave", c)
		}
		for e := sp.entPtr[c]; e < sp.entPtr[c+1]; e++ {
			v := int(sp.entVert[e])
			if seen[[2]int{v, wave[c]}] {
				t.Fatalf("vertex %d in two chunks of wave %d", v, wave[c])
			}
			seen[[2]int{v, wave[c]}] = true
			if sp.first[e] {
				if firstWave[v] >= 0 {
					t.Fatalf("vertex %d cleared twice", v)
				}
				firstWave[v] = wave[c]
			}
		}
	}
	for c := 0; c < nc; c++ {
		for _, v := range sp.entVert[sp.entPtr[c]:sp.entPtr[c+1]] {
			if firstWave[v] < 0 || firstWave[v] > wave[c] {
				t.Fatalf("vertex %d touched in wave %d, cleared in wave %d", v, wave[c], firstWave[v])
			}
		}
	}
}

// TestSpread3 checks the Morton interleave: bit i of x lands on bit 3i.
func TestSpread3(t *testing.T) {
	for i := 0; i < 21; i++ {
		if got := spread3(1 << i); got != 1<<(3*i) {
			t.Errorf("spread3(1<<%d) = %#x, want %#x", i, got, uint64(1)<<(3*i))
		}
	}
	if got := spread3(1<<21 - 1); got != 0x1249249249249249 {
		t.Errorf("spread3 of 21 ones = %#x", got)
	}
}
