package rig

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/finite"
	"gallop/solver/ssdr"
)

// Given is a user's skeleton to fit (`gallop rig --fit-to`): read from a
// glTF skin.
type Given struct {
	Mesh     *assets.Mesh       // the skinned mesh, in its bind pose
	Rest     []mgl64.Vec3       // its positions: the rest pose the skeleton is bound at
	Skeleton *ssdr.Skeleton     // bone j is the skin's joint j
	Names    []string           // the joints' names
	Weights  [][]ssdr.Influence // the skin's weights, to start the fit
}

// LoadSkeleton reads the skeleton of the first skinned object of the glTF
// file path for an animation of nv vertices: the joints' hierarchy, each
// joint's rest position (the origin of its frame in the bind pose, from
// its inverse bind matrix) and the skin's weights. A file without a skin,
// with a skin of another vertex count, several root joints, or a singular
// inverse bind matrix is an error naming the file.
func LoadSkeleton(path string, nv int) (*Given, error) {
	objs, err := assets.LoadGLTF(path)
	if err != nil {
		return nil, err
	}
	o := assets.FirstSkinned(objs)
	if o == nil {
		return nil, fmt.Errorf("%s: no skinned mesh, so no skeleton to fit (export one with gallop rig --skeleton --out)", path)
	}
	if n := o.Mesh.NumVertices(); n != nv {
		return nil, fmt.Errorf("%s: its skinned mesh %q has %d vertices, the animation %d; the skeleton must be bound to the same mesh", path, o.Name, n, nv)
	}
	rig := o.Rig
	g := &Given{Mesh: o.Mesh, Rest: o.Mesh.Positions, Skeleton: &ssdr.Skeleton{Parent: make([]int, len(rig.Joints)), Joint: make([]mgl64.Vec3, len(rig.Joints))},
		Names: make([]string, len(rig.Joints)), Weights: make([][]ssdr.Influence, len(rig.Weights))}
	roots := 0
	for j, jt := range rig.Joints {
		g.Skeleton.Parent[j], g.Names[j] = jt.Parent, jt.Name
		if jt.Parent < 0 {
			roots++
		}
		ib := jt.InverseBind
		if d := ib.Det(); !(math.Abs(d) > 1e-12) || !finite.Floats(ib[:]...) {
			return nil, fmt.Errorf("%s: joint %d (%q) has a singular inverse bind matrix", path, j, jt.Name)
		}
		g.Skeleton.Joint[j] = ib.Inv().Col(3).Vec3()
	}
	if roots != 1 {
		return nil, fmt.Errorf("%s: its skin has %d root joints; a skeleton to fit has one", path, roots)
	}
	for i, l := range rig.Weights {
		g.Weights[i] = make([]ssdr.Influence, len(l))
		for a, in := range l {
			g.Weights[i][a] = ssdr.Influence{Bone: in.Joint, Weight: in.Weight}
		}
	}
	if err := g.Skeleton.Validate(len(rig.Joints)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// fit returns opts asking Decompose to fit g: its bone count, its
// skeleton given and its weights to start, opts.Skeleton's locked bones
// and rounds kept.
func (g *Given) fit(opts ssdr.Options) ssdr.Options {
	o := &ssdr.SkeletonOptions{Root: ssdr.AutoRoot, RootVertex: -1, Given: g.Skeleton, Weights: g.Weights}
	if k := opts.Skeleton; k != nil {
		o.Locked, o.Rounds = k.Locked, k.Rounds
	}
	opts.Bones, opts.Skeleton = len(g.Skeleton.Parent), o
	return opts
}

// ParseBones reads a list of bones separated by commas ("" is none), as
// --lock and Settings.Locked give them: numbers from 0 (whether the rig
// has that many bones is the solver's check, or Settings.Check's).
func ParseBones(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(list, ",") {
		j, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || j < 0 {
			return nil, fmt.Errorf("bone %q is not a number ≥ 0", strings.TrimSpace(f))
		}
		out = append(out, j)
	}
	return out, nil
}
