package ensemble

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"gallop/internal/words"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// RunOnFarm builds the motion graph of the opened dataset with the
// settings of now as `gallop ensemble build` on the farm (Farm's
// settings); when it succeeds its graph file opens with the dataset, as
// Open graph would. What is wrong is reported with h.Error and submits
// nothing.
func (t *Tool) RunOnFarm(h tools.Host) {
	t.defaults()
	if t.data == nil {
		h.Error(errors.New("ensemble: open an ensemble first"))
		return
	}
	if err := t.Settings.Check(); err != nil {
		h.Error(err)
		return
	}
	cmd, err := buildCommand(t.data, t.Settings.build(), t.Settings.TauMax)
	if err != nil {
		h.Error(fmt.Errorf("ensemble: %w", err))
		return
	}
	t.Farm.Submit(h, farmrun.Request{
		Tool: "ensemble",
		Plan: BuildPlan,
		Command: func(_ context.Context, dir string) ([]string, error) {
			return append(cmd, "--out", filepath.Join(dir, "graph.json")), nil
		},
		Load: func(_ context.Context, dir string, _ []byte) (func() error, error) {
			// The graph is read once, by the job that opens it.
			path := filepath.Join(dir, "graph.json")
			return func() error { t.OpenGraphFile(h, path); return nil }, nil
		},
	})
}

// buildCommand is the `gallop ensemble build` of data's levels and groups
// file (absolute paths) with these settings, without --out.
func buildCommand(data *Data, s BuildSettings, tauMax int32) ([]string, error) {
	cmd := []string{"ensemble", "build"}
	for _, l := range data.Levels {
		abs, err := filepath.Abs(l)
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, abs)
	}
	if data.Groups != "" {
		abs, err := filepath.Abs(data.Groups)
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, "--groups", abs)
	}
	return append(cmd, "--tau-max", strconv.Itoa(int(tauMax)), "--samples", strconv.Itoa(s.Samples),
		"--eta", words.Float(s.Eta), "--tries", strconv.Itoa(s.Tries),
		"--seed", strconv.FormatUint(s.Seed, 10)), nil
}
