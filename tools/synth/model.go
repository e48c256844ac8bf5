// Package synth is the Synthesize tool's model: one short mesh animation
// turned into many different, arbitrarily long ones by One-to-Many (Zheng
// 2013, gallop/solver/synth), on a rig inferred by SSDR; and the export of
// a synthesised clip as skinned glTF or morph targets.
package synth

import (
	"context"
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/solver/ssdr"
	"gallop/solver/synth"

	"github.com/go-gl/mathgl/mgl64"
)

// DefaultBones is the number of SSDR bones the tool infers by default.
const DefaultBones = 20

// Infer builds the skinning model of an animation: rest is the rest pose
// (a mesh with the clip's vertices and triangles), clip the input frames.
// The rig is SSDR's with bones bones and at most 4 influences a vertex;
// progress, if set, gets its iterations.
func Infer(ctx context.Context, rest *assets.Mesh, clip *assets.Clip, bones int, progress func(iteration int, rmse float64)) (*synth.Model, error) {
	if clip == nil || len(clip.Frames) < synth.MinFrames {
		n := 0
		if clip != nil {
			n = len(clip.Frames)
		}
		return nil, fmt.Errorf("%w (it has %d)", synth.ErrFewFrames, n)
	}
	if err := clip.Validate(rest.NumVertices()); err != nil {
		return nil, err
	}
	opts := ssdr.Options{Bones: bones, MaxInfluences: 4}
	if progress != nil {
		opts.Progress = func(it int, rmse float64, _ ssdr.Stage) { progress(it, rmse) }
	}
	res, err := ssdr.Decompose(ctx, rest.Positions, rest.Triangles, clip.Frames, opts)
	if err != nil {
		return nil, err
	}
	return &synth.Model{Rest: rest.Positions, Triangles: rest.Triangles, Weights: res.Weights, Bones: res.Transforms, Input: clip.Frames}, nil
}

// Graphs builds each part's motion graph at threshold T, or at each part's
// default threshold when T is 0. The error of a part that has no
// transition names the part when there are several.
func Graphs(a *synth.Analysis, threshold float64) ([]*synth.Graph, error) {
	var graphs []*synth.Graph
	for k, p := range a.Parts {
		t := threshold
		if t == 0 {
			t = p.DefaultThreshold()
		}
		g, err := p.Graph(t)
		if err != nil {
			if len(a.Parts) > 1 {
				return nil, fmt.Errorf("part %d: %w", k+1, err)
			}
			return nil, err
		}
		graphs = append(graphs, g)
	}
	return graphs, nil
}

// GraphFigures are the motion graphs' figures, over the parts: the
// candidate transitions admitted, the graphs' nodes and their largest
// strongly connected components' nodes (sums), the fewest input frames a
// part's largest component holds, and the median pose distance of every
// part's transitions in steps (synth.Transition).
type GraphFigures struct {
	Candidates     int     `json:"candidates"`
	Nodes          int     `json:"graph_nodes"`
	SCCNodes       int     `json:"scc_nodes"`
	SCCFrames      int     `json:"scc_frames"`
	MedianDistance float64 `json:"median_transition_steps"`
}

// Figures measures graphs.
func Figures(graphs []*synth.Graph) GraphFigures {
	var f GraphFigures
	var d []float64
	for k, g := range graphs {
		f.Candidates += len(g.Transitions)
		f.Nodes += len(g.Segments)
		f.SCCNodes += len(g.Largest)
		if n := g.LargestFrames(); k == 0 || n < f.SCCFrames {
			f.SCCFrames = n
		}
		for _, t := range g.Transitions {
			d = append(d, t.Distance)
		}
	}
	if len(d) > 0 {
		slices.Sort(d)
		f.MedianDistance = d[(len(d)-1)/2]
	}
	return f
}

// SubdivideModel returns m on its mesh subdivided once by
// assets.SubdivideMidpoint (about four times the triangles): the rest pose
// and the input frames subdivided, the weights carried over by
// assets.SubdivideMidpointRig (an edge's new vertex takes the mean of its
// end points' weights, so they still sum to 1 and linear blend skinning
// poses it at the mean of their skinned positions), the same bones.
func SubdivideModel(m *synth.Model) *synth.Model {
	mesh := &assets.Mesh{Positions: m.Rest, Triangles: m.Triangles}
	rig := &assets.Rig{Weights: make([][]assets.Influence, len(m.Weights))}
	for i, l := range m.Weights {
		for _, in := range l {
			rig.Weights[i] = append(rig.Weights[i], assets.Influence{Joint: in.Bone, Weight: in.Weight})
		}
	}
	sub := assets.SubdivideMidpoint(mesh)
	out := &synth.Model{Rest: sub.Positions, Triangles: sub.Triangles, Bones: m.Bones, Input: make([][]mgl64.Vec3, len(m.Input))}
	for _, l := range assets.SubdivideMidpointRig(mesh, rig).Weights {
		w := make([]ssdr.Influence, len(l))
		for k, in := range l {
			w[k] = ssdr.Influence{Bone: in.Joint, Weight: in.Weight}
		}
		out.Weights = append(out.Weights, w)
	}
	for f, pos := range m.Input {
		out.Input[f] = assets.SubdivideMidpointPositions(mesh, pos)
	}
	return out
}
