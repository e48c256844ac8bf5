package ensemble

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/ensemble"
)

// Recording is a played stretch in the model's compact form: per frame
// and group, the group's world frame, its coordinates q_k and its sewing
// corrections (ensemble.Poser's at that frame). With the model's bases it
// gives every position exactly: T_Wk(p_k + U_k q_k + S_k c_k).
type Recording struct {
	FPS    float64
	World  [][]ensemble.Rigid // [frame][group]
	Coords [][][]float64      // [frame][group]: q_k
	Sewing [][][]mgl64.Vec3   // [frame][group]: c_k, one per sewn vertex
	Blend  [][]bool           // [frame][group]: blending at that frame
	Levels []int              // [frame]: the level shown
}

// Add records the frame the player's last Step posed.
func (r *Recording) Add(p *ensemble.Player, m *ensemble.Model) {
	ps := p.Poser()
	G := m.Groups()
	world := make([]ensemble.Rigid, G)
	coords := make([][]float64, G)
	sewing := make([][]mgl64.Vec3, G)
	for k := range G {
		world[k] = ps.World(k)
		coords[k] = append([]float64(nil), ps.Coordinates(k)...)
		sewing[k] = append([]mgl64.Vec3(nil), ps.Sewing(k)...)
	}
	r.World = append(r.World, world)
	r.Coords = append(r.Coords, coords)
	r.Sewing = append(r.Sewing, sewing)
	r.Blend = append(r.Blend, append([]bool(nil), p.Blending()...))
	r.Levels = append(r.Levels, p.Level())
}

// snapshot returns the frames recorded so far, which the recording's
// later Adds and drops leave as they are (a frame's own slices never
// change once recorded).
func (r *Recording) snapshot() *Recording {
	return &Recording{FPS: r.FPS, World: slices.Clone(r.World), Coords: slices.Clone(r.Coords),
		Sewing: slices.Clone(r.Sewing), Blend: slices.Clone(r.Blend), Levels: slices.Clone(r.Levels)}
}

// Frames returns the number of frames recorded.
func (r *Recording) Frames() int { return len(r.World) }

// Compact returns the recording as a rigid animation with morph targets,
// one body per group (the compact glTF form of the issue): the body's mesh
// is the group's rest shape p_k with its triangles, its morph targets the
// PCA basis vectors U_k followed by the sewing fields S_k (three per sewn
// vertex), its weights per frame q_k followed by the corrections' x, y, z,
// and its translation and rotation the group's world frame. glTF players
// compute R·(p + Σ wᵢdᵢ) + t, which is the model's position exactly.
//
// The body's origin is the group's pivot c_k (see pivot), not the world's: its
// mesh is p_k − c_k and its translation T + R·c_k, the same positions.
// Between two keys a player moves the node's origin on a straight line and
// turns the node by slerp, so a vertex at a distance ρ from the origin
// strays by about ρθ²/8 for a turn θ; with the world's origin metres away,
// a flag's sewn vertices and the rope's parted by up to 0.9 mm between the
// banner's keys, with the pivot by 0.03 mm.
func (r *Recording) Compact(m *ensemble.Model, e *assets.Ensemble, name string) (*assets.RigidAnimation, error) {
	if r.Frames() == 0 {
		return nil, fmt.Errorf("ensemble export: nothing recorded")
	}
	a := &assets.RigidAnimation{Name: name, FPS: r.FPS}
	for k, g := range e.Groups {
		rest := e.Rest[g.First : g.First+g.Count]
		c := pivot(e, k)
		local := make([]assets.Vec3, len(rest))
		for v, p := range rest {
			local[v] = p.Sub(c)
		}
		mesh := &assets.Mesh{Name: g.Name, Positions: local, Triangles: g.Triangles}
		b := assets.RigidBody{Name: g.Name, Mesh: mesh, Color: GroupColour(k)}
		b.Targets = append(m.Basis(k), m.SewingBasis(k)...)
		for f := range r.World {
			w := r.World[f][k]
			b.Positions = append(b.Positions, w.Apply(c))
			b.Rotations = append(b.Rotations, mgl64.Mat4ToQuat(w.R.Mat4()).Normalize())
			if len(b.Targets) == 0 {
				continue
			}
			row := append([]float64(nil), r.Coords[f][k]...)
			for _, c := range r.Sewing[f][k] {
				row = append(row, c[0], c[1], c[2])
			}
			b.Weights = append(b.Weights, row)
		}
		a.Bodies = append(a.Bodies, b)
	}
	return a, nil
}

// pivot returns the origin of group k's node in the compact export: the
// centroid of its sewn vertices at rest, where it is sewn to its parent,
// or of all its vertices for a group sewn to none.
func pivot(e *assets.Ensemble, k int) assets.Vec3 {
	g := &e.Groups[k]
	var sum assets.Vec3
	if len(g.Attach) > 0 {
		for _, at := range g.Attach {
			sum = sum.Add(e.Rest[g.First+at[0]])
		}
		return sum.Mul(1 / float64(len(g.Attach)))
	}
	for _, p := range e.Rest[g.First : g.First+g.Count] {
		sum = sum.Add(p)
	}
	return sum.Mul(1 / float64(g.Count))
}

// GroupColour is the colour of group k in the window and the exports: a
// few well-separated hues in turn, none of them red (Compare marks the
// groups of new interpenetrating pairs red) and none yellow, orange or
// yellow-green (the groups blending turn yellow, and did look like the
// amber and lime groups of an earlier palette).
func GroupColour(k int) [3]float32 {
	palette := [...][3]float32{
		{0.15, 0.60, 0.35}, {0.20, 0.45, 0.80}, {0.85, 0.45, 0.60}, {0.15, 0.65, 0.68},
		{0.58, 0.30, 0.70}, {0.55, 0.55, 0.55}, {0.45, 0.70, 0.95},
	}
	return palette[k%len(palette)]
}
