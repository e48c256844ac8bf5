package collide

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
)

var sinkBool bool

// BenchmarkTrianglesIntersect measures one triangle pair test in the
// cases a mesh query meets: boxes apart, boxes overlapping but one
// triangle on one side of the other's plane, crossing (the general
// position path), sharing a corner (exact zeros: the edge fallback) and
// coplanar overlapping.
func BenchmarkTrianglesIntersect(b *testing.B) {
	for _, c := range []struct {
		name string
		a, b tri
	}{
		{"boxes-apart", unit, tri{{2, 2, -1}, {2, 2, 1}, {3, 3, 0}}},
		{"one-side", unit, tri{{0.1, 0.1, 0.1}, {0.9, 0.1, 0.3}, {0.1, 0.9, 0.2}}},
		{"crossing", unit, tri{{0.25, 0.25, -1}, {0.3, 0.2, 1}, {2, 2, 0.5}}},
		{"crossing-apart", unit, tri{{0.75, 0.75, -1}, {0.8, 0.7, 1}, {2, 2, 0.5}}},
		{"shared-corner", unit, tri{{0, 0, 0}, {-1, 0.3, 1}, {0.2, -1, -1}}},
		{"coplanar", unit, tri{{0.2, 0.2, 0}, {2, 0.2, 0}, {0.2, 2, 0}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sinkBool = TrianglesIntersect(c.a, c.b)
			}
		})
	}
}

// BenchmarkSphereMesh tests balls against the horse (16,843 triangles):
// balls of radius 1% of the horse's diagonal on random vertices (touching)
// and at random points of its box; the touching rate is reported.
func BenchmarkSphereMesh(b *testing.B) {
	pos, tris := loadHorse(b, "0001")
	m := NewMesh(pos, tris)
	box := m.Bounds()
	r := box.Max.Sub(box.Min).Len() * 0.01
	rng := rand.New(rand.NewPCG(31, 31))
	centers := make([]mgl64.Vec3, 1024)
	for i := range centers {
		if i%2 == 0 {
			centers[i] = pos[rng.IntN(len(pos))]
		} else {
			for k := range 3 {
				centers[i][k] = box.Min[k] + (box.Max[k]-box.Min[k])*rng.Float64()
			}
		}
	}
	b.ReportAllocs()
	i, hits := 0, 0
	for b.Loop() {
		if SphereMesh(centers[i%len(centers)], r, m) {
			hits++
		}
		i++
	}
	b.ReportMetric(float64(hits)/float64(i), "touching/op")
}

// BenchmarkHorseHorse refits a copy of the horse to positions moved by d
// and tests it against the horse, as a frame of the motion-synthesis check
// does: overlapping by most of the body (d = 0.02 x: intersecting), by
// part of it (0.3 x), with the copy's legs above the horse's back (1 y,
// 0.5 z: the boxes overlap, the surfaces do not touch, so every candidate
// is tested) and with boxes apart. MeshesIntersect stops at the first pair;
// MeshPairs finds them all. The copy alternates between two positions
// 0.001 apart so that every refit moves it; the refit alone (between two
// poses of the gallop) is timed too.
func BenchmarkHorseHorse(b *testing.B) {
	pos, tris := loadHorse(b, "0001")
	p24, _ := loadHorse(b, "0024")
	a := NewMesh(pos, tris)
	for _, c := range []struct {
		name string
		d    mgl64.Vec3
	}{
		{"0.02x", mgl64.Vec3{0.02, 0, 0}},
		{"0.3x", mgl64.Vec3{0.3, 0, 0}},
		{"above", mgl64.Vec3{0, 1, 0.5}},
		{"apart", mgl64.Vec3{1, 0, 0}},
	} {
		frames := [2][]mgl64.Vec3{translate(pos, c.d), translate(pos, c.d.Add(mgl64.Vec3{0.001, 0, 0}))}
		m := NewMesh(frames[0], tris)
		b.Run("refit+intersect/"+c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				m.Refit(frames[i%2])
				sinkBool = MeshesIntersect(a, m)
				i++
			}
		})
		b.Run("refit+pairs/"+c.name, func(b *testing.B) {
			i, pairs := 0, 0
			for b.Loop() {
				m.Refit(frames[i%2])
				MeshPairs(a, m, func(int, int) bool { pairs++; return true })
				i++
			}
			b.ReportMetric(float64(pairs)/float64(i), "pairs/op")
		})
	}
	b.Run("refit", func(b *testing.B) {
		frames := [2][]mgl64.Vec3{pos, p24}
		i := 0
		for b.Loop() {
			a.Refit(frames[i%2])
			i++
		}
	})
}

// BenchmarkContains tests random points of the horse's box for
// containment (the horse with its holes capped).
func BenchmarkContains(b *testing.B) {
	pos, tris := loadHorse(b, "0001")
	m := NewMesh(closeHoles(b, pos, tris))
	box := m.Bounds()
	rng := rand.New(rand.NewPCG(32, 32))
	pts := make([]mgl64.Vec3, 1024)
	for i := range pts {
		for k := range 3 {
			pts[i][k] = box.Min[k] + (box.Max[k]-box.Min[k])*rng.Float64()
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkBool = m.Contains(pts[i%len(pts)])
		i++
	}
}

// BenchmarkGridPairs finds the overlapping pairs among n random boxes.
func BenchmarkGridPairs(b *testing.B) {
	for _, n := range []int{31, 1000, 10000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(33, 33))
			boxes := make([]bvh.AABB, n)
			side := 10 * math.Cbrt(float64(n)/1000)
			for i := range boxes {
				for k := range 3 {
					lo := side * rng.Float64()
					boxes[i].Min[k], boxes[i].Max[k] = lo, lo+rng.ExpFloat64()*0.5
				}
			}
			var g Grid
			var dst [][2]int
			b.ReportAllocs()
			for b.Loop() {
				dst = g.Pairs(dst[:0], boxes)
			}
			b.ReportMetric(float64(len(dst)), "pairs")
		})
	}
}
