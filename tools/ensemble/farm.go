package ensemble

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"gallop/internal/option"
	"gallop/internal/words"
	"gallop/solver/ensemble"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// RunOnFarm builds the motion graph of the opened dataset with the
// settings of now as `gallop ensemble build` on the farm (Farm's
// settings); when it succeeds its graph file opens with the dataset, as
// Open graph would, unless that would end what the artist is doing (see
// farmBuilt). What is wrong is reported with h.Error and submits nothing.
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
			return func() error { t.farmBuilt(h, path); return nil }, nil
		},
	})
}

// farmBuilt takes the graph file of a farm build that succeeded: it opens
// at once when nothing is lost by it, and otherwise waits for the artist
// (FarmWaiting, UseFarmGraph, KeepFarmGraphWaiting), since opening a graph
// ends the played stretch and stops a build running: a result never
// replaces the stretch without asking. A newer result takes the place of
// one waiting.
func (t *Tool) farmBuilt(h tools.Host, path string) {
	if t.farmLoss() == "" {
		t.farmGraph = ""
		t.OpenGraphFile(h, path)
		return
	}
	t.farmGraph = path
	h.Info("Ensemble: a farm build finished; its graph waits until you use it (%s ends) or not", t.farmLoss())
}

// farmLoss says what opening a graph now would end: "the played
// stretch", "the build running", both, or "" for nothing.
func (t *Tool) farmLoss() string {
	var lost []string
	if t.play != nil {
		lost = append(lost, "the played stretch")
	}
	if t.Building() {
		lost = append(lost, "the build running")
	}
	return strings.Join(lost, " and ")
}

// FarmWaiting returns the graph file of a farm build waiting for the
// artist ("" for none) and what using it would end (see farmLoss).
func (t *Tool) FarmWaiting() (path, ends string) {
	if t.farmGraph == "" {
		return "", ""
	}
	return t.farmGraph, t.farmLoss()
}

// UseFarmGraph opens the farm build's graph that waits, with its data, as
// Open graph does: once it has opened, the played stretch ends.
func (t *Tool) UseFarmGraph(h tools.Host) {
	path := t.farmGraph
	t.farmGraph = ""
	if path != "" {
		t.OpenGraphFile(h, path)
	}
}

// KeepFarmGraphWaiting leaves the farm build's graph that waits unopened
// (the played stretch plays on); its file stays where it is, for Open
// graph.
func (t *Tool) KeepFarmGraphWaiting(h tools.Host) {
	if t.farmGraph != "" {
		h.Info("Ensemble: the farm's graph is not used; Open graph... opens %s", t.farmGraph)
	}
	t.farmGraph = ""
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
		"--effort", words.Float(option.Resolve(s.Effort, ensemble.DefaultEffort)), "--budget", words.Float(s.Budget),
		"--change-within", words.Float(cmp.Or(s.ChangeWithin, DefaultChangeWithin)),
		"--seed", strconv.FormatUint(s.Seed, 10)), nil
}
