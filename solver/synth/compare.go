package synth

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
	"gallop/solver/rotation"
	"gallop/solver/ssdr"
)

// SpliceFigures are the figures of one forced splice (Analysis.Splice).
type SpliceFigures struct {
	From, To int     // the transition (i, j): frame i, then frame j+1
	Angle    float64 // the mean over the part's bones of the angle between their positions at i and j in the reference frame, in degrees
	Accel    float64 // the splice's acceleration ratio (Quality.SpliceAccel)
	Strain   float64 // its excess edge strain (Quality.SpliceStrain)
	Volume   float64 // the largest |V − V̂| / |V⁰| over the window: the mesh's signed volume against the crossfade of the two segments' (whole mesh)
}

// MeanSplice returns the mean Angle, Accel, Strain and Volume of fs (From
// and To zero), zero for none.
func MeanSplice(fs []SpliceFigures) SpliceFigures {
	var m SpliceFigures
	for _, f := range fs {
		n := float64(len(fs))
		m.Angle += f.Angle / n
		m.Accel += f.Accel / n
		m.Strain += f.Strain / n
		m.Volume += f.Volume / n
	}
	return m
}

// BoneAngle returns the mean over part p's bones of the rotation angle
// between their positions at input frames i and j in the reference frame,
// in degrees: how far apart the two frames' skeletal poses are.
func (p *Part) BoneAngle(i, j int) float64 {
	if len(p.Bones) == 0 {
		return 0
	}
	sum := 0.0
	for c := range p.Bones {
		sum += rotation.Log(p.local[i][c].R.Transpose().Mul3(p.local[j][c].R)).Len()
	}
	return sum / float64(len(p.Bones)) * 180 / math.Pi
}

// Splice synthesises the clip that plays the input up to frame i and goes
// on from frame j+1 (one splice, forced whether or not (i, j) is a
// candidate), blended as req says (Window, Blend, Affine; its other
// fields are ignored), with W+4 frames on each side of the splice, and
// measures it. The input must have room: frames i−W−4 ≥ 1 and
// j+W+5 < n. It serves the comparison of the blends: splices between
// frames ever further apart show how each blend copes. Only an analysis
// of one part is supported.
func (a *Analysis) Splice(i, j int, req Request) (SpliceFigures, error) {
	if len(a.Parts) != 1 {
		return SpliceFigures{}, errors.New("synth: forced splices of an analysis in several parts")
	}
	req.withDefaults(a)
	W := req.Window
	pre := W + SpliceReach + 1
	p := a.Parts[0]
	if i-pre < 1 || j+1+pre >= p.n {
		return SpliceFigures{}, fmt.Errorf("synth: no room for a splice from frame %d to %d with a window of %d frames in %d frames", i, j, W, p.n)
	}
	w := Walk{Splices: []int{pre}}
	for x := i - pre; x <= i; x++ {
		w.Source = append(w.Source, x)
	}
	for x := j + 1; x <= j+1+pre; x++ {
		w.Source = append(w.Source, x)
	}
	req.Frames = len(w.Source)
	s := &Synthesizer{a: a, req: req}
	c := &Clip{Walks: []Walk{w}, Analysis: a}
	s.assemble(c)
	q := a.Quality(c, W)
	f := SpliceFigures{From: i, To: j, Angle: p.BoneAngle(i, j), Accel: q.SpliceAccel[0], Strain: q.SpliceStrain[0]}
	m := a.Model
	v0 := math.Abs(volume(m.Rest, m.Triangles))
	if v0 == 0 {
		return f, nil
	}
	vs := a.inputVolumes()
	var pos []mgl64.Vec3
	for t := pre - W + 1; t <= pre+W; t++ {
		al := float64(t-pre+W) / float64(2*W+1)
		want := (1-al)*vs[clamp(i+t-pre, p.n)] + al*vs[clamp(j+t-pre, p.n)]
		pos = c.Pose(pos, t)
		f.Volume = max(f.Volume, math.Abs(volume(pos, m.Triangles)-want)/v0)
	}
	return f, nil
}

// inputVolumes returns the volume of every input frame in the model's
// pose, computed by the first caller (Splices calls Splice on every core).
func (a *Analysis) inputVolumes() []float64 {
	a.volumesOnce.Do(func() {
		m := a.Model
		var pos []mgl64.Vec3
		a.volumes = make([]float64, m.NumFrames())
		for x := range a.volumes {
			pos = ssdr.Skin(pos, m.Rest, m.Weights, m.Bones[x])
			a.volumes[x] = volume(pos, m.Triangles)
		}
	})
	return a.volumes
}

// volume returns the signed volume enclosed by the triangles, Σ p₀·(p₁×p₂)/6.
func volume(pos []mgl64.Vec3, tris [][3]int) float64 {
	v := 0.0
	for _, t := range tris {
		v += pos[t[0]].Dot(pos[t[1]].Cross(pos[t[2]]))
	}
	return v / 6
}

// Splices forces a splice (Splice) at every pair of input frames (i, j)
// with i and j on a grid of stride frames, at least MinJump apart, with
// room for the window, whose BoneAngle lies in [lo, hi) degrees, blended
// as req says; on every core. The figures come by i, then j.
func (a *Analysis) Splices(req Request, lo, hi float64, stride int) ([]SpliceFigures, error) {
	if len(a.Parts) != 1 {
		return nil, errors.New("synth: forced splices of an analysis in several parts")
	}
	p := a.Parts[0]
	req.withDefaults(a)
	pre := req.Window + SpliceReach + 1
	var rows []int
	for i := 1; i < p.n; i += max(stride, 1) {
		if i-pre >= 1 {
			rows = append(rows, i)
		}
	}
	out := make([][]SpliceFigures, len(rows))
	errs := make([]error, len(rows))
	parallel.For(len(rows), func(r int) {
		i := rows[r]
		for j := 1; j+1+pre < p.n; j += max(stride, 1) {
			if !p.eligible(i, j) {
				continue
			}
			if ang := p.BoneAngle(i, j); ang < lo || ang >= hi {
				continue
			}
			f, err := a.Splice(i, j, req)
			if err != nil {
				errs[r] = err
				return
			}
			out[r] = append(out[r], f)
		}
	})
	return slices.Concat(out...), errors.Join(errs...)
}
