package dynskin

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ssdr"
)

// tubeModel returns a capsule-like cylinder of rings×around vertices along
// y, length 4, radius 0.5, with two bones along its axis.
func tubeModel(t testing.TB, rings, around int) (*Model, []mgl64.Vec3) {
	t.Helper()
	var rest []mgl64.Vec3
	var tris [][3]int
	var w [][]ssdr.Influence
	for r := 0; r < rings; r++ {
		y := 4 * float64(r) / float64(rings-1)
		for a := 0; a < around; a++ {
			th := 2 * math.Pi * float64(a) / float64(around)
			rest = append(rest, mgl64.Vec3{0.5 * math.Cos(th), y, 0.5 * math.Sin(th)})
			u := y / 4
			w = append(w, []ssdr.Influence{{Bone: 0, Weight: 1 - u}, {Bone: 1, Weight: u}})
		}
	}
	for r := 0; r+1 < rings; r++ {
		for a := 0; a < around; a++ {
			i, j := r*around+a, r*around+(a+1)%around
			tris = append(tris, [3]int{i, j, i + around}, [3]int{j, j + around, i + around})
		}
	}
	segs := []Segment{{A: mgl64.Vec3{0, 0, 0}, B: mgl64.Vec3{0, 2, 0}}, {A: mgl64.Vec3{0, 2, 0}, B: mgl64.Vec3{0, 4, 0}}}
	m, err := NewModel(rest, tris, w, segs)
	if err != nil {
		t.Fatal(err)
	}
	return m, rest
}

// prepareAll prepares segments for vertexColumns.
func prepareAll(segs []Segment) []preparedSegment {
	p := make([]preparedSegment, len(segs))
	for b, s := range segs {
		p[b] = s.prepare()
	}
	return p
}

// accelerations returns the forces whose columns are c: cₖ/h².
func accelerations(c *columns, h float64) (f [nParams]mgl64.Vec3) {
	for k := range c {
		f[k] = mgl64.Vec3(c[k]).Mul(1 / (h * h))
	}
	return f
}
