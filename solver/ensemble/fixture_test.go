package ensemble

import (
	"context"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// Synthetic ensembles for the tests: a rope (a strip of 2 × ropeCols
// vertices along x) with two flags sewn to its front edge, a plate that
// floats above the rope as its unattached child, and a second root, a
// "post" standing apart. Groups 0 rope, 1 flag_a, 2 flag_b, 3 plate,
// 4 post.
const (
	ropeCols   = 13
	flagCols   = 3
	flagRows   = 4
	synthLevel = 110 // frames per level
)

// grid returns the triangles of a rows × cols vertex grid numbered row by
// row.
func grid(rows, cols int) [][3]int {
	var t [][3]int
	for r := range rows - 1 {
		for c := range cols - 1 {
			a := r*cols + c
			t = append(t, [3]int{a, a + 1, a + cols}, [3]int{a + 1, a + cols + 1, a + cols})
		}
	}
	return t
}

// flagStart is the rope column of each flag's first column.
var flagStart = [2]int{1, 7}

// motion describes how the synthetic ensemble moves.
type motion struct {
	rigidOnly bool // every group keeps a fixed deformed shape; the whole ensemble moves rigidly
}

// synthetic returns the synthetic ensemble with levels levels of
// synthLevel frames.
func synthetic(levels int, mo motion) *Dataset {
	d := &Dataset{FPS: 30}
	add := func(name string, parent int, rest []mgl64.Vec3, tris [][3]int) {
		d.Groups = append(d.Groups, Group{Name: name, First: len(d.Rest), Count: len(rest), Parent: parent, Triangles: tris})
		d.Rest = append(d.Rest, rest...)
	}
	var rope []mgl64.Vec3
	for r := range 2 {
		for c := range ropeCols {
			rope = append(rope, mgl64.Vec3{0.1 * float64(c), 1, -0.05 * float64(r)})
		}
	}
	add("rope", -1, rope, grid(2, ropeCols))
	for f, start := range flagStart {
		var flag []mgl64.Vec3
		for r := range flagRows {
			for c := range flagCols {
				flag = append(flag, mgl64.Vec3{0.1 * float64(start+c), 1 - 0.08*float64(r), 0})
			}
		}
		add([]string{"flag_a", "flag_b"}[f], 0, flag, grid(flagRows, flagCols))
		g := &d.Groups[len(d.Groups)-1]
		for c := range flagCols {
			g.Attach = append(g.Attach, Attachment{Vertex: c, ParentVertex: start + c})
		}
	}
	var plate []mgl64.Vec3
	for r := range 3 {
		for c := range 3 {
			plate = append(plate, mgl64.Vec3{0.5 + 0.05*float64(c), 1.2, -0.05 * float64(r)})
		}
	}
	add("plate", 0, plate, grid(3, 3))
	post := []mgl64.Vec3{{3, 0, 0}, {3.1, 0, 0}, {3, 0.5, 0}, {3.1, 0.5, 0}, {3.05, 1, 0.02}}
	add("post", -1, post, [][3]int{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}})

	for l := range levels {
		lv := Level{Name: []string{"calm", "strong", "gale"}[l%3]}
		amp := 0.5 + 0.5*float64(l)
		for f := range synthLevel {
			t := float64(f) / d.FPS
			lv.Frames = append(lv.Frames, synthFrame(d, amp, t, float64(l), mo))
		}
		d.Levels = append(d.Levels, lv)
	}
	return d
}

// synthFrame poses the synthetic ensemble at time t.
func synthFrame(d *Dataset, amp, t, phase float64, mo motion) []mgl64.Vec3 {
	x := make([]mgl64.Vec3, len(d.Rest))
	w := 2*math.Pi*0.7 + phase
	rope := func(p mgl64.Vec3) mgl64.Vec3 {
		return p.Add(mgl64.Vec3{0.01 * amp * math.Sin(3*p[0]+w*t), 0.05 * amp * math.Sin(2*math.Pi*p[0]/1.2+w*t), 0.02 * amp * math.Cos(2*p[0]+1.3*w*t)})
	}
	if mo.rigidOnly {
		rope = func(p mgl64.Vec3) mgl64.Vec3 { return p.Add(mgl64.Vec3{0.01 * p[0] * p[0], 0.02 * p[0], 0}) }
		amp, t = 0, 0 // a fixed shape, below
	}
	for k, g := range d.Groups {
		for v := range g.Count {
			p := d.Rest[g.First+v]
			switch g.Name {
			case "rope":
				x[g.First+v] = rope(p)
			case "flag_a", "flag_b":
				top := mgl64.Vec3{p[0], 1, 0}
				depth := 1 - p[1]
				swing := mgl64.Vec3{0.02 * depth * math.Sin(5*p[0]), -depth, 0.3*depth*amp*math.Sin(w*t+3*p[0]+float64(k)) + 0.1*depth*depth}
				x[g.First+v] = rope(top).Add(swing)
			case "plate":
				lift := mgl64.Vec3{0, 0.03 * amp * math.Sin(1.7*w*t), 0}
				bend := 0.2 * amp * math.Sin(w*t) * (p[0] - 0.55) * (p[0] - 0.55)
				x[g.First+v] = rope(p).Add(lift).Add(mgl64.Vec3{0, bend, 0})
			case "post":
				turn := rotation.Exp(mgl64.Vec3{0, 0.3 * amp * math.Sin(w*t), 0})
				c := mgl64.Vec3{3.05, 0, 0}
				q := p.Add(mgl64.Vec3{0.1 * amp * p[1] * p[1] * math.Sin(w*t+1), 0, 0})
				x[g.First+v] = turn.Mul3x1(q.Sub(c)).Add(c)
			}
		}
	}
	return x
}

// rigidSynthetic returns the synthetic ensemble with every group held in
// a fixed deformed shape, the whole ensemble moving rigidly, differently in
// each frame.
func rigidSynthetic(levels int) *Dataset {
	d := synthetic(levels, motion{rigidOnly: true})
	for l := range d.Levels {
		for f, x := range d.Levels[l].Frames {
			t := float64(f) / d.FPS
			m := Rigid{
				R: rotation.Exp(mgl64.Vec3{0.4 * math.Sin(2*t+float64(l)), 0.7 * math.Cos(1.3*t), 0.2 * t}),
				T: mgl64.Vec3{math.Sin(t), 0.3 * t, -0.5 * float64(l)},
			}
			for v := range x {
				x[v] = m.Apply(x[v])
			}
		}
	}
	return d
}

// model builds the model of d with opts, failing the test on error.
//
// Unless opts says otherwise, the model has the paper's single blend
// length (Blends = 1), which the tests' frame numbers were chosen for;
// the tests of two blend lengths set Blends.
func model(tb testing.TB, d *Dataset, opts Options) *Model {
	tb.Helper()
	if opts.Blends == 0 {
		opts.Blends = 1
	}
	m, err := NewModel(context.Background(), d, opts, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
