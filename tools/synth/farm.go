package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/solver/synth"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// ParseObstacle reads an obstacle of `gallop synth --obstacle`:
// "sphere:X,Y,Z,R", "ground:H" (everything below height H, y up) or
// "mesh:FILE.obj" (the mesh as the OBJ file has it).
func ParseObstacle(s string) (synth.Obstacle, error) {
	kind, arg, _ := strings.Cut(s, ":")
	switch kind {
	case "sphere":
		x, err := words.Floats(arg, 4)
		if err != nil {
			return nil, fmt.Errorf("obstacle %q: %w (want sphere:X,Y,Z,R)", s, err)
		}
		o := Obstacle{Kind: ObstacleSphere, Center: assets.Vec3{x[0], x[1], x[2]}, Radius: x[3]}
		return o.solver(nil)
	case "ground":
		x, err := words.Floats(arg, 1)
		if err != nil {
			return nil, fmt.Errorf("obstacle %q: %w (want ground:HEIGHT)", s, err)
		}
		return Obstacle{Kind: ObstaclePlane, Height: x[0]}.solver(nil)
	case "mesh":
		m, err := assets.LoadOBJ(arg)
		if err != nil {
			return nil, fmt.Errorf("obstacle %q: %w", s, err)
		}
		o, err := synth.NewMeshObstacle(m.Positions, m.Triangles)
		if err != nil {
			return nil, fmt.Errorf("obstacle %q: %w", s, err)
		}
		return o, nil
	}
	return nil, fmt.Errorf("obstacle %q: want sphere:X,Y,Z,R, ground:HEIGHT or mesh:FILE.obj", s)
}

// farmInput is what the farm's command reads of the document, taken on
// the UI thread: the object's rest mesh and clip, and the meshes of the
// objects that are obstacles, at their first frame.
type farmInput struct {
	obj       *assets.Object
	settings  Settings
	targets   []synth.Target
	obstacles []Obstacle
	meshes    map[int]*assets.Mesh // by obstacle, for ObstacleObject
}

// RunOnFarm runs what Analyse then Generate would do with the settings,
// targets and obstacles of now as `gallop synth` on the farm (Farm's
// settings); when it succeeds its clips fill the gallery as if generated
// here. What is wrong is reported with h.Error and submits nothing.
func (t *Synth) RunOnFarm(h tools.Host) {
	t.Sync(h)
	o := t.input(h)
	if o == nil {
		return
	}
	in := &farmInput{obj: o, settings: t.Settings, targets: append([]synth.Target(nil), t.Targets...),
		obstacles: append([]Obstacle(nil), t.Obstacles...), meshes: map[int]*assets.Mesh{}}
	if err := t.checkTargets(h); err != nil {
		h.Error(err) // before the farm, not after its job failed
		return
	}
	for i, ob := range in.obstacles {
		if _, err := ob.solver(h); err != nil {
			h.Error(fmt.Errorf("synthesize: obstacle %d: %w", i+1, err))
			return
		}
		if ob.Kind == ObstacleObject {
			for _, d := range h.Objects() {
				if d.Name == ob.Object && d != o {
					m := d.Mesh.Clone()
					m.Positions = d.PositionsAt(0)
					in.meshes[i] = m
				}
			}
		}
	}
	t.Farm.Submit(h, farmrun.Request{
		Tool:    "synth",
		Plan:    Plan,
		Command: in.command,
		Load: func(ctx context.Context, _ string, out []byte) (func() error, error) {
			res, vs, err := in.load(ctx, out)
			if err != nil {
				return nil, err
			}
			return func() error { return t.farmed(h, res, vs) }, nil
		},
	})
}

// command writes the object into dir (its rest mesh as reference.obj, its
// clip as an OBJ file per frame in frames/, every digit kept, and the
// obstacle objects as OBJ files) and returns the `gallop synth` command of
// the settings, writing its clips to dir/clips as skinned glTF.
func (in *farmInput) command(ctx context.Context, dir string) ([]string, error) {
	o, s := in.obj, in.settings
	frames := filepath.Join(dir, "frames")
	if err := os.MkdirAll(frames, 0o755); err != nil {
		return nil, err
	}
	// The vertices and triangles alone: the command reads nothing else,
	// and WriteOBJ writes every digit.
	bare := &assets.Mesh{Name: o.Mesh.Name, Positions: o.Mesh.Positions, Triangles: o.Mesh.Triangles}
	ref := filepath.Join(dir, "reference.obj")
	if err := assets.SaveOBJ(ref, bare, nil); err != nil {
		return nil, err
	}
	for k, f := range o.Clip.Frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := assets.SaveOBJ(filepath.Join(frames, fmt.Sprintf("frame-%06d.obj", k+1)), bare, f); err != nil {
			return nil, err
		}
	}
	cmd := []string{"synth", frames, "--reference", ref, "--fps", words.Float(o.FPS()),
		"--bones", strconv.Itoa(int(s.Bones)), "--threshold", words.Float(s.Threshold), "--blend", s.Blend,
		"--count", strconv.Itoa(int(s.Count)), "--seconds", words.Float(s.Seconds), "--seed", strconv.Itoa(int(s.Seed)),
		"--out", filepath.Join(dir, "clips"), "--json"}
	if s.Components {
		cmd = append(cmd, "--components")
	}
	for _, tg := range in.targets {
		cmd = append(cmd, "--target", fmt.Sprintf("%d@%d", tg.Input+1, tg.Output+1)) // frames counted from 1, as the timeline
	}
	for i, ob := range in.obstacles {
		switch ob.Kind {
		case ObstacleSphere:
			cmd = append(cmd, "--obstacle", fmt.Sprintf("sphere:%s,%s,%s,%s", words.Float(ob.Center[0]), words.Float(ob.Center[1]), words.Float(ob.Center[2]), words.Float(ob.Radius)))
		case ObstaclePlane:
			cmd = append(cmd, "--obstacle", "ground:"+words.Float(ob.Height))
		case ObstacleObject:
			m := in.meshes[i]
			if m == nil {
				return nil, fmt.Errorf("obstacle %d: the document has no other object named %q", i+1, ob.Object)
			}
			path := filepath.Join(dir, fmt.Sprintf("obstacle-%d.obj", i+1))
			if err := assets.SaveOBJ(path, &assets.Mesh{Name: m.Name, Positions: m.Positions, Triangles: m.Triangles}, nil); err != nil {
				return nil, err
			}
			cmd = append(cmd, "--obstacle", "mesh:"+path)
		}
	}
	return cmd, nil
}

// load reads the clips the command wrote, by its report out: each clip's
// bones from its skinned glTF (to float32), its splices and quality from
// the report, over the model of the first clip's file (every clip has the
// same rig).
func (in *farmInput) load(ctx context.Context, out []byte) (*Analysed, []*Variation, error) {
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, nil, fmt.Errorf("the report of gallop synth: %w", err)
	}
	if len(rep.Clips) == 0 || !(rep.FPS > 0) {
		return nil, nil, errors.New("the report of gallop synth has no clips")
	}
	res := &Analysed{obj: in.obj, fps: rep.FPS}
	vs := make([]*Variation, len(rep.Clips))
	for i, c := range rep.Clips {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		objs, err := assets.LoadGLTF(c.File)
		if err != nil {
			return nil, nil, err
		}
		model, bones, err := ClipFromSkinned(objs[0])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.File, err)
		}
		if len(bones) != c.Frames || len(model.Rest) != in.obj.Mesh.NumVertices() {
			return nil, nil, fmt.Errorf("%s: %d frames of %d vertices, the report says %d frames of the object's %d", c.File, len(bones), len(model.Rest), c.Frames, in.obj.Mesh.NumVertices())
		}
		if res.Analysis == nil {
			res.Analysis = &synth.Analysis{Model: model, Diagonal: restDiagonal(model.Rest)}
		}
		clip := &synth.Clip{Seed: c.Seed, Seeds: []uint64{c.Seed}, Bones: bones, Analysis: res.Analysis}
		for _, f := range c.SpliceFrames {
			clip.Walks = append(clip.Walks, synth.Walk{Splices: f})
		}
		v := &Variation{Clip: clip, Quality: synth.Quality{SpliceAccel: c.SpliceAccel, MaxAccel: c.MaxSpliceAccRatio, EdgeRatio: c.EdgeRatio, MeanStrain: c.MeanStrain}}
		v.Lo, v.Hi = clipBounds(clip)
		vs[i] = v
	}
	return res, vs, nil
}

// farmed makes the clips of a farm run the gallery, as a generation that
// ended would (on the UI thread). The object must be the one the run was
// submitted for.
func (t *Synth) farmed(h tools.Host, res *Analysed, vs []*Variation) error {
	t.Sync(h)
	if t.obj != res.obj {
		return errors.New("synthesize: the object the farm ran on is no longer the active one")
	}
	if t.Generating() {
		t.gen.task.Cancel()
	}
	g := &generation{res: res, fps: res.fps}
	g.cur = Gallery{Variations: vs, Errors: make([]error, len(vs)), Done: len(vs)}
	g.publish(g.snapshot())
	g.task.Take()
	t.gen, t.chosen = g, -1
	t.report = fmt.Sprintf("%d variations from the farm", len(vs))
	return nil
}

// restDiagonal is the diagonal of the bounding box of rest, as
// synth.Analyze measures it (Analysis.Diagonal).
func restDiagonal(rest []assets.Vec3) float64 {
	lo, hi := assets.Bounds(rest)
	return hi.Sub(lo).Len()
}
