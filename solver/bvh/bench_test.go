package bvh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/shareddata"
)

// BenchmarkBuild builds over the horse (8,431 vertices, 16,843 triangles),
// sequentially and with the top levels in parallel.
func BenchmarkBuild(b *testing.B) {
	pos, tris := loadHorse(b)
	b.Run("parallel", func(b *testing.B) {
		for b.Loop() {
			Build(pos, tris)
		}
	})
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			build(pos, tris, 0)
		}
	})
}

// BenchmarkRefit refits the horse tree to one of its poses and back.
func BenchmarkRefit(b *testing.B) {
	pos, tris := loadHorse(b)
	pose, _ := loadOBJ(b, shareddata.Path(b, "horse-poses", "frames", "1.obj"))
	tr := Build(pos, tris)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tr.Refit(pose)
		} else {
			tr.Refit(pos)
		}
		i++
	}
}

// BenchmarkIntersect casts random rays through the horse's bounding box
// (half from outside, half from inside); the hit rate is reported.
func BenchmarkIntersect(b *testing.B) {
	pos, tris := loadHorse(b)
	tr := Build(pos, tris)
	origins, dirs := randomRays(rand.New(rand.NewPCG(1, 1)), tr.Bounds(), 4096)
	b.Run("closest", func(b *testing.B) {
		b.ReportAllocs()
		i, hits := 0, 0
		for b.Loop() {
			if _, ok := tr.Intersect(origins[i%4096], dirs[i%4096], math.Inf(1)); ok {
				hits++
			}
			i++
		}
		b.ReportMetric(float64(hits)/float64(i), "hits/ray")
	})
	b.Run("any", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			tr.IntersectAny(origins[i%4096], dirs[i%4096], math.Inf(1))
			i++
		}
	})
	b.Run("brute-force", func(b *testing.B) {
		i := 0
		for b.Loop() {
			bruteIntersect(pos, tris, origins[i%4096], dirs[i%4096], math.Inf(1))
			i++
		}
	})
}

// BenchmarkQuery looks up the triangles near random points of the horse
// with boxes of 1% of its size, as a collision broad phase would.
func BenchmarkQuery(b *testing.B) {
	pos, tris := loadHorse(b)
	tr := Build(pos, tris)
	r := tr.Bounds().Max.Sub(tr.Bounds().Min).Len() * 0.01
	rng := rand.New(rand.NewPCG(2, 2))
	boxes := make([]AABB, 4096)
	for i := range boxes {
		p := pos[rng.IntN(len(pos))]
		boxes[i] = AABB{Min: p, Max: p}.Expand(r)
	}
	b.ReportAllocs()
	i, found := 0, 0
	visit := func(int) bool { found++; return true }
	for b.Loop() {
		tr.Query(boxes[i%4096], visit)
		i++
	}
	b.ReportMetric(float64(found)/float64(i), "triangles/query")
}

var sinkHit Hit

// BenchmarkTriangle measures one ray–triangle test.
func BenchmarkTriangle(b *testing.B) {
	r := newRay(mgl64.Vec3{0.2, 0.3, 1}, mgl64.Vec3{0.01, 0.02, -1})
	v := [3]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	for b.Loop() {
		t, u, w, _ := r.triangle(&v, math.Inf(1))
		sinkHit.T, sinkHit.U, sinkHit.V = t, u, w
	}
}
