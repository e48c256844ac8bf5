package ensemble

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/solver/meshgraph"
	"gallop/solver/rotation"
)

// Group is one mesh group of an ensemble: a blade of grass, a flag, the
// rope the flags hang from.
type Group struct {
	Name         string
	First, Count int          // vertex range [First, First+Count), 0-based, ensemble order
	Parent       int          // index of the parent group, −1 for a root
	Triangles    [][3]int     // the group's triangles, indices local to the group (0 … Count−1)
	Attach       []Attachment // the group's vertices sewn to its parent's vertices
}

// Attachment sews a group-local vertex to a parent-local vertex: they
// coincide in every source frame (a flag's top row on the rope).
type Attachment struct{ Vertex, ParentVertex int }

// Level is one clip of the ensemble: every frame holds the positions of
// all vertices in ensemble order, and Wind says the wind level each frame
// was simulated at. A clip at one level (a folder of frames simulated in a
// steady wind) has the same level throughout; a clip whose wind changes
// (an artist's take in which the wind rises and falls) has whole levels
// where the wind holds and fractional ones while it changes. A frame at a
// whole level belongs to that level: transitions leave and land there. A
// frame while the wind changes belongs to none: it is played on the way
// from one level to another, never targeted.
type Level struct {
	Name   string
	Frames [][]mgl64.Vec3
	// Wind is the wind level of each frame (len(Frames) numbers, ≥ 1);
	// nil means every frame is at level l + 1 for the dataset's clip l (a
	// dataset of one clip per level, as the paper's).
	Wind []float64
}

// WindAt returns the wind level of frame f of clip l.
func (d *Dataset) WindAt(l, f int) float64 {
	if w := d.Levels[l].Wind; w != nil {
		return w[f]
	}
	return float64(l + 1)
}

// WindLevels returns the whole wind levels the dataset's frames are at,
// increasing: the levels a player can be asked for.
func (d *Dataset) WindLevels() []float64 {
	var out []float64
	for l, lv := range d.Levels {
		for f := range lv.Frames {
			if w := d.WindAt(l, f); w == math.Trunc(w) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Dataset is a mesh ensemble simulated at one or more wind levels: its
// groups and their hierarchy, the rest shape and the clips (Levels, each
// steady or a take whose wind changes), all at FPS frames per second.
type Dataset struct {
	Groups []Group
	Rest   []mgl64.Vec3 // rest shape, ensemble order
	Levels []Level
	FPS    float64
}

// Vertices returns the number of vertices of the ensemble, len(Rest).
func (d *Dataset) Vertices() int { return len(d.Rest) }

// MinFrames returns the fewest frames a level needs for transitions with
// the given τ_max and longest blend b: 2·(τ_max + b) + 2, so that some
// frame i has every frame i+s, |s| ≤ τ_max + b, in its level.
func MinFrames(tauMax, tauBlend int) int { return 2*(tauMax+tauBlend) + 2 }

// Validate reports the first problem that would keep d from being
// modelled with any Options, as an error naming the group, level,
// frame or vertex (1-based frame and vertex numbers are not used: every
// index in a message is 0-based, as in the types). It checks:
//
//   - at least one group and one level, and a positive finite FPS;
//   - group names unique and non-empty, vertex ranges non-empty, inside
//     Rest, not overlapping, and covering every vertex;
//   - parents in range, and no cycle (the error names the groups on it);
//   - triangle indices inside their group;
//   - attachments only on groups with a parent, their vertices inside the
//     group and the parent, no vertex sewn twice, and an attachment patch
//     (the sewn parent vertices and their one-ring in the parent's mesh)
//     that is not collinear at rest, so that it fixes a frame;
//   - every frame of every level with len(Rest) vertices;
//   - finite coordinates in Rest and in every frame.
//
// How many frames a level needs, MinFrames(τ_max, longest blend), depends
// on the options: NewModel checks it. (Checked here against the default
// τ_max, a folder of 60 frames could not be opened to lower τ_max for it.)
//
// Messages number levels, frames and vertices from 1, as OBJ files and
// folders of frames do.
func (d *Dataset) Validate() error {
	if err := d.validateShape(); err != nil {
		return err
	}
	return d.validateLevels()
}

// validate is Validate, and every level long enough for o.
func (d *Dataset) validate(o Options) error {
	if err := d.Validate(); err != nil {
		return err
	}
	need := MinFrames(o.TauMax, o.maxBlend())
	for l, lv := range d.Levels {
		if len(lv.Frames) < need {
			return fmt.Errorf("ensemble: level %s has %d frames; transitions with τ_max %d and blends of up to %d frames need at least %d (a smaller τ_max needs fewer)", levelName(lv, l), len(lv.Frames), o.TauMax, o.maxBlend(), need)
		}
	}
	return nil
}

// validateShape checks everything of Validate but the levels' frames.
func (d *Dataset) validateShape() error {
	if len(d.Groups) == 0 {
		return fmt.Errorf("ensemble: no groups")
	}
	if !finite.Float(d.FPS) || d.FPS <= 0 {
		return fmt.Errorf("ensemble: frame rate %v is not a positive number", d.FPS)
	}
	if err := d.validateGroups(); err != nil {
		return err
	}
	for v, p := range d.Rest {
		if !finite.Vec3(p) {
			return fmt.Errorf("ensemble: rest shape: vertex %d (%s) has a non-finite coordinate %v", v+1, d.vertexName(v), p)
		}
	}
	if err := d.validateHierarchy(); err != nil {
		return err
	}
	return d.validateAttachments()
}

// vertexName names the group and group-local index of ensemble vertex v.
func (d *Dataset) vertexName(v int) string {
	for _, g := range d.Groups {
		if v >= g.First && v < g.First+g.Count {
			return fmt.Sprintf("group %q vertex %d", g.Name, v-g.First+1)
		}
	}
	return "no group"
}

func (d *Dataset) validateGroups() error {
	n := len(d.Rest)
	if n == 0 {
		return fmt.Errorf("ensemble: the rest shape has no vertices")
	}
	owner := make([]int, n) // group index + 1
	names := map[string]int{}
	for k, g := range d.Groups {
		if g.Name == "" {
			return fmt.Errorf("ensemble: group %d has no name", k)
		}
		if o, ok := names[g.Name]; ok {
			return fmt.Errorf("ensemble: groups %d and %d are both named %q", o, k, g.Name)
		}
		names[g.Name] = k
		if g.Count <= 0 {
			return fmt.Errorf("ensemble: group %q has %d vertices", g.Name, g.Count)
		}
		if g.First < 0 || g.First > n || g.Count > n-g.First { // not g.First+g.Count: it may overflow
			return fmt.Errorf("ensemble: group %q's %d vertices from vertex %d lie outside the ensemble's 0…%d", g.Name, g.Count, g.First, n-1)
		}
		for v := g.First; v < g.First+g.Count; v++ {
			if owner[v] != 0 {
				return fmt.Errorf("ensemble: groups %q and %q overlap at vertex %d", d.Groups[owner[v]-1].Name, g.Name, v)
			}
			owner[v] = k + 1
		}
		for t, tri := range g.Triangles {
			for _, v := range tri {
				if v < 0 || v >= g.Count {
					return fmt.Errorf("ensemble: group %q triangle %d has vertex %d, outside the group's 0…%d", g.Name, t, v, g.Count-1)
				}
			}
		}
	}
	for v, o := range owner {
		if o == 0 {
			return fmt.Errorf("ensemble: vertex %d belongs to no group", v)
		}
	}
	return nil
}

func (d *Dataset) validateHierarchy() error {
	G := len(d.Groups)
	for _, g := range d.Groups {
		if g.Parent < -1 || g.Parent >= G {
			return fmt.Errorf("ensemble: group %q has parent %d; there are groups 0…%d (−1 for a root)", g.Name, g.Parent, G-1)
		}
	}
	// Walk up from every group; a walk longer than G steps is in a cycle.
	state := make([]int8, G) // 0 unvisited, 1 on the current walk, 2 reaches a root
	for k := range d.Groups {
		var walk []int
		for g := k; g >= 0 && state[g] != 2; g = d.Groups[g].Parent {
			if state[g] == 1 {
				i := slices.Index(walk, g)
				names := make([]string, 0, len(walk)-i+1)
				for _, c := range walk[i:] {
					names = append(names, fmt.Sprintf("%q", d.Groups[c].Name))
				}
				names = append(names, fmt.Sprintf("%q", d.Groups[g].Name))
				return fmt.Errorf("ensemble: the hierarchy has a cycle: %s", strings.Join(names, " → parent "))
			}
			state[g] = 1
			walk = append(walk, g)
		}
		for _, g := range walk {
			state[g] = 2
		}
	}
	return nil
}

func (d *Dataset) validateAttachments() error {
	for _, g := range d.Groups {
		if len(g.Attach) == 0 {
			continue
		}
		if g.Parent < 0 {
			return fmt.Errorf("ensemble: group %q has attachments but no parent", g.Name)
		}
		p := d.Groups[g.Parent]
		seen := map[int]bool{}
		for a, at := range g.Attach {
			if at.Vertex < 0 || at.Vertex >= g.Count {
				return fmt.Errorf("ensemble: group %q attachment %d: vertex %d is outside the group's 0…%d", g.Name, a, at.Vertex, g.Count-1)
			}
			if at.ParentVertex < 0 || at.ParentVertex >= p.Count {
				return fmt.Errorf("ensemble: group %q attachment %d: parent vertex %d is outside parent %q's 0…%d", g.Name, a, at.ParentVertex, p.Name, p.Count-1)
			}
			if seen[at.Vertex] {
				return fmt.Errorf("ensemble: group %q vertex %d is sewn twice", g.Name, at.Vertex)
			}
			seen[at.Vertex] = true
		}
		patch, err := attachmentPatch(g, p)
		if err != nil {
			return err
		}
		if collinear(d.Rest[p.First:p.First+p.Count], patch) {
			return fmt.Errorf("ensemble: group %q: its attachment patch on %q (the sewn vertices and their one-ring) is collinear at rest, so it fixes no frame", g.Name, p.Name)
		}
	}
	return nil
}

// attachmentPatch returns the parent-local vertices that give an attached
// group its frame: the parent vertices it is sewn to and their one-ring in
// the parent's mesh, increasing.
func attachmentPatch(g, parent Group) ([]int, error) {
	adj, err := meshgraph.New(parent.Count, parent.Triangles)
	if err != nil {
		return nil, fmt.Errorf("ensemble: group %q: %w", parent.Name, err)
	}
	in := make([]bool, parent.Count)
	for _, at := range g.Attach {
		in[at.ParentVertex] = true
		for _, n := range adj.Neighbours(at.ParentVertex) {
			in[n] = true
		}
	}
	var patch []int
	for v, ok := range in {
		if ok {
			patch = append(patch, v)
		}
	}
	return patch, nil
}

// collinear reports whether the points pos[i], i in idx, lie on one line
// (relative to their spread: the second largest singular value of their
// centred positions is below 1e-9 of the largest).
func collinear(pos []mgl64.Vec3, idx []int) bool {
	var c mgl64.Vec3
	for _, i := range idx {
		c = c.Add(pos[i])
	}
	c = c.Mul(1 / float64(len(idx)))
	var m mgl64.Mat3
	for _, i := range idx {
		d := pos[i].Sub(c)
		for r := range 3 {
			for col := range 3 {
				m[3*col+r] += d[r] * d[col]
			}
		}
	}
	// m is the scatter matrix; its eigenvalues are the squared singular values.
	_, s, _ := rotation.SVD(m)
	return !(s[1] > 1e-18*s[0]) // σ₂/σ₁ < 1e-9
}

func (d *Dataset) validateLevels() error {
	if len(d.Levels) == 0 {
		return fmt.Errorf("ensemble: no levels")
	}
	if err := d.validateWind(); err != nil {
		return err
	}
	n := len(d.Rest)
	for l, lv := range d.Levels {
		name := levelName(lv, l)
		for f, fr := range lv.Frames {
			if len(fr) != n {
				return fmt.Errorf("ensemble: level %s frame %d has %d vertices, the rest shape %d", name, f+1, len(fr), n)
			}
			for v, p := range fr {
				if !finite.Vec3(p) {
					return fmt.Errorf("ensemble: level %s frame %d vertex %d (%s) has a non-finite coordinate %v", name, f+1, v+1, d.vertexName(v), p)
				}
			}
		}
	}
	return nil
}

// validateWind checks each clip's wind series: one level per frame, each
// a number from 1 to maxWind.
func (d *Dataset) validateWind() error {
	for l, lv := range d.Levels {
		name := levelName(lv, l)
		if lv.Wind != nil && len(lv.Wind) != len(lv.Frames) {
			return fmt.Errorf("ensemble: level %s has %d frames and %d wind levels", name, len(lv.Frames), len(lv.Wind))
		}
		for f, w := range lv.Wind {
			if !finite.Float(w) || w < 1 || w > maxWind {
				return fmt.Errorf("ensemble: level %s frame %d: wind level %v; want a number from 1 to %d", name, f+1, w, maxWind)
			}
		}
	}
	return nil
}

// maxWind is the highest wind level a clip may give.
const maxWind = 1000

// levelName is a level's name for messages: its number from 1 and name.
func levelName(lv Level, l int) string {
	if lv.Name == "" {
		return fmt.Sprintf("%d", l+1)
	}
	return fmt.Sprintf("%d (%s)", l+1, lv.Name)
}
