package synth

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/collide"
	"gallop/solver/ssdr"
)

// TestSphereObstacle: a ball where the input's cow passes at the top of
// its jump (its centroid at input frame 40). Clips made without the ball
// pass through it; clips made with it never touch it, by a brute-force
// check that shares no code with the one synthesis uses: the distance from
// the centre to every triangle of every output frame, and the winding
// number of the surface about the centre.
func TestSphereObstacle(t *testing.T) {
	a := analysis(t, "pcow", Options{})
	gs := graphs(t, a)
	m := a.Model
	at40 := ssdr.Skin(nil, m.Rest, m.Weights, m.Bones[40])
	var c mgl64.Vec3
	for _, v := range at40 {
		c = c.Add(v)
	}
	ball := Sphere{Center: c.Mul(1 / float64(len(at40))), Radius: 0.3}

	avoided(t, a, gs, ball, "the ball", func(c *Clip) (int, bool) { return bruteSphere(c, ball) })
}

// avoided checks obstacle o against a brute-force test hits (the first
// output frame of a clip that meets it): some of six clips made without o
// meet it, none of the six made with it does.
func avoided(t *testing.T, a *Analysis, gs []*Graph, o Obstacle, what string, hits func(*Clip) (int, bool)) {
	t.Helper()
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	for _, with := range []bool{false, true} {
		req := Request{Frames: 300}
		if with {
			req.Obstacles = []Obstacle{o}
		}
		s, err := a.NewSynthesizer(gs, req)
		if err != nil {
			t.Fatal(err)
		}
		clips, err := s.Clips(context.Background(), seeds, nil)
		if err != nil {
			t.Fatal(err)
		}
		met := 0
		for _, c := range clips {
			if f, ok := hits(c); ok {
				met++
				if with {
					t.Errorf("seed %d (attempt %d): output frame %d meets %s", c.Seed, c.Attempt, f, what)
				}
			}
		}
		if !with {
			if met == 0 {
				t.Fatalf("no clip made without %s meets it: the test would prove nothing", what)
			}
			t.Logf("%d of %d clips made without %s meet it", met, len(seeds), what)
		}
	}
}

// bruteSphere returns the first output frame of c whose surface comes
// within the ball's radius of its centre or encloses the centre.
func bruteSphere(c *Clip, ball Sphere) (int, bool) {
	tris := c.Analysis.Model.Triangles
	var pos []mgl64.Vec3
	for f := range c.Bones {
		pos = c.Pose(pos, f)
		w := 0.0
		for _, tr := range tris {
			p, q, r := pos[tr[0]], pos[tr[1]], pos[tr[2]]
			if pointTriangleDistance(ball.Center, p, q, r) <= ball.Radius {
				return f, true
			}
			w += solidAngle(ball.Center, p, q, r)
		}
		if math.Abs(w/(4*math.Pi)) > 0.5 {
			return f, true
		}
	}
	return 0, false
}

// pointTriangleDistance is the distance from x to the closed triangle pqr:
// to the plane when x projects inside, else to the nearest edge.
func pointTriangleDistance(x, p, q, r mgl64.Vec3) float64 {
	n := q.Sub(p).Cross(r.Sub(p))
	if n.Len() > 0 {
		n = n.Normalize()
		y := x.Sub(n.Mul(x.Sub(p).Dot(n)))
		inside := q.Sub(p).Cross(y.Sub(p)).Dot(n) >= 0 &&
			r.Sub(q).Cross(y.Sub(q)).Dot(n) >= 0 &&
			p.Sub(r).Cross(y.Sub(r)).Dot(n) >= 0
		if inside {
			return math.Abs(x.Sub(p).Dot(n))
		}
	}
	return min(segmentDistance(x, p, q), segmentDistance(x, q, r), segmentDistance(x, r, p))
}

func segmentDistance(x, a, b mgl64.Vec3) float64 {
	d := b.Sub(a)
	s := 0.0
	if l := d.Dot(d); l > 0 {
		s = min(1, max(0, x.Sub(a).Dot(d)/l))
	}
	return x.Sub(a.Add(d.Mul(s))).Len()
}

// solidAngle is the signed solid angle of triangle pqr seen from x (Van
// Oosterom and Strackee 1983); over a closed surface the sum is 4π inside
// and 0 outside.
func solidAngle(x, p, q, r mgl64.Vec3) float64 {
	a, b, c := p.Sub(x), q.Sub(x), r.Sub(x)
	la, lb, lc := a.Len(), b.Len(), c.Len()
	num := a.Dot(b.Cross(c))
	den := la*lb*lc + a.Dot(b)*lc + b.Dot(c)*la + c.Dot(a)*lb
	return 2 * math.Atan2(num, den)
}

// TestMeshObstacle: a box of the scene where the cow lands (input frame
// 70). Clips made without it meet it; clips made with it do not, by all
// pairs of triangles and the winding number of the cow about a corner of
// the box. The threshold is raised to 4 steps: at the default, pcow's
// dozen transitions leave no walk of 300 frames that misses the box.
func TestMeshObstacle(t *testing.T) {
	a := analysis(t, "pcow", Options{})
	m := a.Model
	at70 := ssdr.Skin(nil, m.Rest, m.Weights, m.Bones[70])
	var c mgl64.Vec3
	for _, v := range at70 {
		c = c.Add(v)
	}
	c = c.Mul(1 / float64(len(at70)))
	box := assets.BoxMesh(assets.Vec3{0.3, 0.3, 0.3})
	for i := range box.Positions {
		box.Positions[i] = box.Positions[i].Add(c)
	}
	o, err := NewMeshObstacle(box.Positions, box.Triangles)
	if err != nil {
		t.Fatal(err)
	}
	avoided(t, a, graphsAt(t, a, 4), o, "the box", func(c *Clip) (int, bool) { return bruteMesh(c, box) })

	if _, err := NewMeshObstacle([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, math.NaN(), 0}}, [][3]int{{0, 1, 2}}); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("a NaN vertex: %v", err)
	}
	if _, err := NewMeshObstacle([]mgl64.Vec3{{0, 0, 0}}, [][3]int{{0, 1, 2}}); err == nil {
		t.Error("an index out of range was accepted")
	}
}

// bruteMesh returns the first output frame of c at which a triangle of the
// cow meets a triangle of the box (every pair) or a corner of the box lies
// inside the cow (winding number).
func bruteMesh(c *Clip, box *assets.Mesh) (int, bool) {
	tris := c.Analysis.Model.Triangles
	var pos []mgl64.Vec3
	for f := range c.Bones {
		pos = c.Pose(pos, f)
		w := 0.0
		for _, tr := range tris {
			ct := [3]mgl64.Vec3{pos[tr[0]], pos[tr[1]], pos[tr[2]]}
			for _, bt := range box.Triangles {
				if collide.TrianglesIntersect(ct, [3]mgl64.Vec3{box.Positions[bt[0]], box.Positions[bt[1]], box.Positions[bt[2]]}) {
					return f, true
				}
			}
			w += solidAngle(box.Positions[0], ct[0], ct[1], ct[2])
		}
		if math.Abs(w/(4*math.Pi)) > 0.5 {
			return f, true
		}
	}
	return 0, false
}

// TestBlockingObstacle: a ball around everything the cow can reach blocks
// every walk; the clip fails with ErrBlocked, quickly.
func TestBlockingObstacle(t *testing.T) {
	a := analysis(t, "pcow", Options{})
	s, err := a.NewSynthesizer(graphs(t, a), Request{Frames: 300, Obstacles: []Obstacle{Sphere{Radius: 1000}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Clip(context.Background(), 1)
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("got %v, want ErrBlocked", err)
	}
	t.Logf("%v after %v", err, time.Since(start)) // its speed is gallop bench's, not a test's
}
