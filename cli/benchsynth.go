package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/internal/parallel"
	"gallop/solver/synth"
	tsynth "gallop/tools/synth"
)

// benchSynth prints the synthesis figures (issue 12): on pcow, the SSDR
// and analysis times, 1,000 clips of 10 s on every core (median of
// max(1, min(runs, 3))), and one clip on one core (median of 50); per
// data set and blend, the quality of 100 clips; and the cost of a clip on
// horse-gallop against the same subdivided once.
func benchSynth(stdout io.Writer, data string, runs int) error {
	ctx := context.Background()
	ref, clip, err := loadRigSet(data, "pcow")
	if err != nil {
		return err
	}
	start := time.Now()
	model, err := tsynth.Infer(ctx, ref, clip, tsynth.DefaultBones, nil)
	if err != nil {
		return fmt.Errorf("pcow: %w", err)
	}
	figure.Write(stdout, "synth_pcow_ssdr_seconds", time.Since(start).Seconds(), "s")
	start = time.Now()
	a, err := synth.Analyze(ctx, model, synth.Options{})
	if err != nil {
		return fmt.Errorf("pcow: %w", err)
	}
	graphs, err := tsynth.Graphs(a, 0)
	if err != nil {
		return fmt.Errorf("pcow: %w", err)
	}
	figure.Write(stdout, "synth_pcow_analysis_seconds", time.Since(start).Seconds(), "s")
	s, err := a.NewSynthesizer(graphs, synth.Request{Frames: 300})
	if err != nil {
		return fmt.Errorf("pcow: %w", err)
	}
	seeds := make([]uint64, 1000)
	for k := range seeds {
		seeds[k] = uint64(k + 1)
	}
	t, err := median(max(1, min(runs, 3)), func() error {
		_, err := s.Clips(ctx, seeds, nil)
		return err
	})
	if err != nil {
		return err
	}
	figure.Write(stdout, "synth_pcow_1000_clips_seconds", t.Seconds(), "s")
	ms, err := clipMillis(s)
	if err != nil {
		return err
	}
	figure.Write(stdout, "synth_pcow_clip_ms", ms, "ms per clip, one core")

	for _, set := range []string{"pcow", "horse-gallop"} {
		a := a
		if set != "pcow" {
			r, c, err := loadRigSet(data, set)
			if err != nil {
				return err
			}
			m, err := tsynth.Infer(ctx, r, c, tsynth.DefaultBones, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", set, err)
			}
			if a, err = synth.Analyze(ctx, m, synth.Options{}); err != nil {
				return fmt.Errorf("%s: %w", set, err)
			}
		}
		if err := benchBlends(stdout, set, a); err != nil {
			return err
		}
	}
	if err := benchResolution(stdout, data); err != nil {
		return err
	}
	return benchDenseCommand(stdout, data)
}

// benchDenseCommand times issue 24's resolution figure end to end: the
// horse-gallop frames and reference subdivided twice (writeDenseHorse),
// then `gallop synth DIR --count 1000 --seconds 10 --seed 1 --json` run
// as its own process (this executable): its wall time, its peak resident
// memory and the SSDR and synthesis times it reports.
func benchDenseCommand(stdout io.Writer, data string) error {
	dir, err := writeDenseHorse(data)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	frames := filepath.Join(dir, "frames")
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "synth", frames, "--count", "1000", "--seconds", "10", "--seed", "1", "--json")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gallop synth on horse-gallop subdivided twice: %w", err)
	}
	wall := time.Since(start).Seconds()
	var r tsynth.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return fmt.Errorf("gallop synth on horse-gallop subdivided twice: %w", err)
	}
	figure.Write(stdout, "synth_horse_gallop_x16_vertices", float64(r.Vertices), "vertices")
	figure.Write(stdout, "synth_horse_gallop_x16_command_seconds", wall, "s, 1,000 clips of 10 s, SSDR included")
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		figure.Write(stdout, "synth_horse_gallop_x16_peak_gb", float64(ru.Maxrss)/(1<<20), "GB resident at most")
	}
	figure.Write(stdout, "synth_horse_gallop_x16_ssdr_seconds", r.SSDRSeconds, "s")
	figure.Write(stdout, "synth_horse_gallop_x16_synthesis_seconds", r.SynthesisSeconds, "s")
	return nil
}

// writeDenseHorse writes horse-gallop subdivided twice by midpoints
// (134,782 vertices, 269,488 triangles, 48 frames: the production size
// of issue 32) as OBJ files to a new temporary folder, reference.obj and
// frames/0001.obj..., and returns the folder, which the caller removes.
func writeDenseHorse(data string) (dir string, err error) {
	ref, clip, err := loadRigSet(data, "horse-gallop")
	if err != nil {
		return "", err
	}
	if dir, err = os.MkdirTemp("", "gallop-bench-dense-"); err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	mesh := assets.SubdivideMidpoint(ref)
	dense := assets.SubdivideMidpoint(mesh)
	if err := assets.SaveOBJ(filepath.Join(dir, "reference.obj"), dense, dense.Positions); err != nil {
		return "", err
	}
	frames := filepath.Join(dir, "frames")
	if err := os.Mkdir(frames, 0o755); err != nil {
		return "", err
	}
	for f, pos := range clip.Frames {
		p := assets.SubdivideMidpointPositions(mesh, assets.SubdivideMidpointPositions(ref, pos))
		if err := assets.SaveOBJ(filepath.Join(frames, fmt.Sprintf("%04d.obj", f+1)), dense, p); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// clipMillis returns the median time of one clip on one core over 50
// clips.
func clipMillis(s *synth.Synthesizer) (float64, error) {
	seed := uint64(0)
	t, err := median(50, func() error {
		seed++
		_, err := s.Clip(context.Background(), seed)
		return err
	})
	return t.Seconds() * 1e3, err
}

// benchBlends prints, for each blend, the mean splice acceleration ratio,
// the share of splices over 1.5 and the largest edge ratio of 100 clips of
// 10 s (seeds 1-100).
func benchBlends(stdout io.Writer, set string, a *synth.Analysis) error {
	graphs, err := tsynth.Graphs(a, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", set, err)
	}
	name := "synth_" + strings.ReplaceAll(set, "-", "_")
	for b := range synth.Blends {
		blend := synth.Blend(b)
		s, err := a.NewSynthesizer(graphs, synth.Request{Frames: 300, Blend: blend})
		if err != nil {
			return fmt.Errorf("%s: %w", set, err)
		}
		seeds := make([]uint64, 100)
		for k := range seeds {
			seeds[k] = uint64(k + 1)
		}
		clips, err := s.Clips(context.Background(), seeds, nil)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", set, blend, err)
		}
		qs := make([]synth.Quality, len(clips))
		parallel.For(len(clips), func(i int) { qs[i] = a.Quality(clips[i], s.Window()) })
		var sum, edge, strain float64
		var n, over int
		for _, q := range qs {
			strain += q.MeanStrain / float64(len(qs))
			for _, r := range q.SpliceAccel {
				sum += r
				n++
				if r > 1.5 {
					over++
				}
			}
			edge = max(edge, q.EdgeRatio)
		}
		prefix := name + "_" + blend.String()
		figure.Write(stdout, prefix+"_mean_splice_ratio", sum/float64(max(1, n)), "of the input's 99th percentile")
		figure.Write(stdout, prefix+"_splices_over_1_5", float64(over)/float64(max(1, n)), "of the splices")
		figure.Write(stdout, prefix+"_edge_ratio", edge, "of the input's largest")
		figure.Write(stdout, prefix+"_mean_strain", strain, "excess edge strain per splice")
	}
	return benchForced(stdout, name, a)
}

// benchForced prints the blend comparison: splices forced between pairs
// of frames on a grid of every other frame (every n/50th on a longer
// input), binned by the mean angle between the two frames'
// bones (0-20°, 20-40°, 40° and more), and per bin and blend the mean
// excess edge strain, volume change and acceleration ratio. Every blend
// is measured as clips have it (bones projected to rigid motions), and
// the crossfade and the gradient blend also with their bones left affine:
// the per-vertex crossfade, "crossfade_vertex", and "gradient_affine".
func benchForced(stdout io.Writer, name string, a *synth.Analysis) error {
	type variant struct {
		name string
		req  synth.Request
	}
	var vs []variant
	for b, n := range synth.Blends {
		vs = append(vs, variant{strings.ReplaceAll(n, "-", "_"), synth.Request{Blend: synth.Blend(b)}})
	}
	vs = append(vs, variant{"crossfade_vertex", synth.Request{Blend: synth.BlendCrossfade, Affine: true}},
		variant{"gradient_affine", synth.Request{Blend: synth.BlendGradient, Affine: true}})
	for _, bin := range [][2]float64{{0, 20}, {20, 40}, {40, math.Inf(1)}} {
		for _, v := range vs {
			fs, err := a.Splices(v.req, bin[0], bin[1], max(2, a.Model.NumFrames()/50))
			if err != nil {
				return err
			}
			if len(fs) == 0 {
				continue
			}
			m := synth.MeanSplice(fs)
			prefix := fmt.Sprintf("%s_forced_%g_%s", name, bin[0], v.name)
			figure.Write(stdout, prefix+"_strain", m.Strain, fmt.Sprintf("mean excess edge strain of %d splices", len(fs)))
			figure.Write(stdout, prefix+"_volume", m.Volume, "mean volume change of the rest volume")
			figure.Write(stdout, prefix+"_accel", m.Accel, "mean acceleration ratio")
		}
	}
	return nil
}

// benchResolution prints the time of one clip (one core, median of 50)
// on horse-gallop with 20 SSDR bones and on the same subdivided once (4 ×
// the triangles) with the rig's weights carried over to the new vertices
// (assets.SubdivideMidpointRig) and the same bones, and their ratio.
func benchResolution(stdout io.Writer, data string) error {
	ctx := context.Background()
	ref, clip, err := loadRigSet(data, "horse-gallop")
	if err != nil {
		return err
	}
	model, err := tsynth.Infer(ctx, ref, clip, tsynth.DefaultBones, nil)
	if err != nil {
		return fmt.Errorf("horse-gallop: %w", err)
	}
	var times [2]float64
	for k, m := range []*synth.Model{model, tsynth.SubdivideModel(model)} {
		a, err := synth.Analyze(ctx, m, synth.Options{})
		if err != nil {
			return fmt.Errorf("horse-gallop: %w", err)
		}
		graphs, err := tsynth.Graphs(a, 0)
		if err != nil {
			return fmt.Errorf("horse-gallop: %w", err)
		}
		s, err := a.NewSynthesizer(graphs, synth.Request{Frames: 300})
		if err != nil {
			return fmt.Errorf("horse-gallop: %w", err)
		}
		if times[k], err = clipMillis(s); err != nil {
			return err
		}
	}
	figure.Write(stdout, "synth_horse_gallop_clip_ms", times[0], "ms per clip, one core")
	figure.Write(stdout, "synth_horse_gallop_subdivided_clip_ms", times[1], "ms per clip, one core")
	figure.Write(stdout, "synth_resolution_ratio", times[1]/times[0], "subdivided over plain")
	return nil
}
