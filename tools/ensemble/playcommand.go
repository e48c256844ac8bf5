package ensemble

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/atomicfile"
	"gallop/solver/ensemble"
)

// PlayReport is what `gallop ensemble play` reports (with --json, as one
// JSON object).
type PlayReport struct {
	Frames        int          `json:"frames"`
	Seconds       float64      `json:"seconds"`
	FPS           float64      `json:"fps"`
	Transitions   int          `json:"transitions"`
	Cuts          int          `json:"cuts"` // jumps back to the first frame of a level without a loop
	WindChanges   int          `json:"wind_changes"`
	LevelsShown   []int        `json:"levels_shown"`          // 1-based
	NotReached    []int        `json:"levels_not_reached"`    // levels of --wind never shown, 1-based
	Changes       []PlayChange `json:"changes"`               // every change of wind
	Missed        int          `json:"changes_missed"`        // of those, the ones the output did not reach before the next or the end
	ChangeWorst   float64      `json:"change_worst_s"`        // the longest a reached change took, seconds
	Checked       bool         `json:"checked"`               // --check: every frame tested by the exhaustive checker
	NewPairFrames int          `json:"new_interpenetrations"` // with --check: (frame, pair)s intersecting in no source frame the frame shows
	FramesWithNew int          `json:"frames_with_new"`       // with --check: frames with one or more
	MaxStepRatio  float64      `json:"max_step_ratio"`        // largest step of a group over the model's source frames' largest
	MaxStepData   float64      `json:"max_step_ratio_data"`   // the same over the data's own
	MaxSewnGap    float64      `json:"max_sewn_gap"`
	MsPerFrame    float64      `json:"ms_per_frame"` // the player alone, one core
	Out           string       `json:"out,omitempty"`
	Bytes         int64        `json:"bytes,omitempty"`       // the compact glTF
	PlainBytes    int64        `json:"plain_bytes,omitempty"` // the same frames as a plain per-frame morph glTF
	ModelSeconds  float64      `json:"model_seconds"`
	PlaySeconds   float64      `json:"play_seconds"`
	ExportSeconds float64      `json:"export_seconds,omitempty"`
}

// PlayChange is one change of wind in a play's report: when it was asked
// (seconds into the output), the level asked for (1-based) and how long
// the output took to first show a frame at that level (seconds; null when
// it did not before the next change or the end).
type PlayChange struct {
	At      float64  `json:"at_s"`
	Level   int      `json:"level"`
	Reached *float64 `json:"reached_after_s"`
}

// plainLimit is the most frames whose plain per-frame export a play
// measures to compare sizes: beyond it the file (12 bytes a vertex a
// frame) would not be worth its memory.
const plainLimit = 5400

// PlayCommand is the work of `gallop ensemble play`: a graph file's motion
// graph played, the wind moving through levels, measured and written.
type PlayCommand struct {
	Graph       *GraphFile // as LoadGraph read it
	Path        string     // its file, for the errors
	Seconds     float64    // the length played
	Winds       []int      // the wind levels in turn, 0-based
	ChangeEvery float64    // seconds between wind changes
	Seed        uint64     // the player's random stream
	// Out is the output: a .glb or .gltf file (compact: a node per group,
	// its PCA basis as morph targets), else a folder of OBJ frames with one
	// o block per group; "" for none.
	Out string
	// Check tests every frame with the exhaustive checker (PlayOptions).
	Check bool
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style), often.
	Status func(format string, args ...any)
}

// status reports how far the work has come, if anyone listens.
func (c *PlayCommand) status(format string, args ...any) {
	if c.Status != nil {
		c.Status(format, args...)
	}
}

// Run opens the graph's data, plays it, writes Out and reports.
func (c *PlayCommand) Run(ctx context.Context) (*PlayReport, error) {
	start := time.Now()
	m, g, e, err := c.Graph.Open(ctx, func(done, total int) { c.status("loading frames %d/%d", done, total) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	res := &PlayReport{ModelSeconds: time.Since(start).Seconds(), FPS: m.Dataset().FPS}
	n := int(math.Round(c.Seconds * res.FPS))
	glb := strings.HasSuffix(strings.ToLower(c.Out), ".glb") || strings.HasSuffix(strings.ToLower(c.Out), ".gltf")
	objDir := c.Out != "" && !glb
	if objDir {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return nil, err
		}
	}
	start = time.Now()
	opts := PlayOptions{Frames: n, Winds: c.Winds, ChangeEvery: max(1, int(math.Round(c.ChangeEvery*res.FPS))), Seed: c.Seed, Record: glb, Keep: glb && n <= plainLimit, Check: c.Check}
	played, err := Play(m, g, opts, func(f int, x []mgl64.Vec3) error {
		c.status("frame %d/%d", f+1, n)
		if !objDir {
			return nil
		}
		path := filepath.Join(c.Out, fmt.Sprintf("%d.obj", f+1))
		return atomicfile.Write(path, func(w io.Writer) error { return assets.WriteEnsembleOBJ(w, e.Groups, x) })
	})
	if err != nil {
		return nil, err
	}
	res.PlaySeconds = time.Since(start).Seconds()
	res.Frames, res.Seconds, res.Transitions, res.WindChanges, res.Cuts = n, float64(n)/res.FPS, played.Transitions, played.WindChanges, played.Cuts
	res.MaxStepRatio, res.MaxStepData, res.MaxSewnGap = played.MaxStepRatio, played.MaxStepData, played.MaxSewnGap
	res.MsPerFrame = played.StepSeconds * 1000 / float64(n)
	for _, l := range played.LevelsShown {
		res.LevelsShown = append(res.LevelsShown, l+1)
	}
	res.Changes = []PlayChange{}
	for _, ch := range played.Changes {
		pc := PlayChange{At: float64(ch.Frame) / res.FPS, Level: ch.Wind + 1}
		if ch.After >= 0 {
			after := float64(ch.After) / res.FPS
			pc.Reached = &after
			res.ChangeWorst = max(res.ChangeWorst, after)
		} else {
			res.Missed++
		}
		res.Changes = append(res.Changes, pc)
	}
	for _, w := range c.Winds {
		if !slices.Contains(res.LevelsShown, w+1) && !slices.Contains(res.NotReached, w+1) {
			res.NotReached = append(res.NotReached, w+1)
		}
	}
	res.Checked, res.NewPairFrames, res.FramesWithNew = c.Check, played.NewPairFrames, played.FramesWithNew
	res.Out = c.Out
	if glb {
		start = time.Now()
		name := strings.TrimSuffix(filepath.Base(c.Out), filepath.Ext(c.Out))
		if res.Bytes, err = SaveCompact(c.Out, played.Recording, m, e, name); err != nil {
			return nil, err
		}
		res.ExportSeconds = time.Since(start).Seconds()
		if played.Positions != nil {
			if res.PlainBytes, err = PlainSize(c.Out, e, played.Positions, res.FPS); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// SaveCompact writes rec, a stretch played on model m of ensemble e, to
// out as the compact glTF (Recording.Compact) named name, and returns the
// file's size.
func SaveCompact(out string, rec *Recording, m *ensemble.Model, e *assets.Ensemble, name string) (int64, error) {
	a, err := rec.Compact(m, e, name)
	if err != nil {
		return 0, err
	}
	if err := assets.SaveRigidGLTF(out, a); err != nil {
		return 0, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// PlainSize returns the size of frames of ensemble e, at fps frames a
// second, as the plain per-frame morph export (one mesh, one morph target
// per frame) in out's format (.glb or .gltf), counted without writing a
// file.
func PlainSize(out string, e *assets.Ensemble, frames [][]mgl64.Vec3, fps float64) (int64, error) {
	obj := &assets.Object{Name: "ensemble", Mesh: e.Mesh(), Clip: &assets.Clip{Name: "played", FPS: fps, Frames: frames}}
	return assets.GLTFSize(obj, assets.ExportOptions{Mode: assets.ExportMorph}, strings.EqualFold(filepath.Ext(out), ".glb"))
}
