package gallery

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gallop/internal/atomicfile"
	"gallop/internal/words"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// SamplesList is the file `gallop sample --out DIR` lists its samples in:
// DIR/samples.json, a JSON array of SampleFile.
const SamplesList = "samples.json"

// SampleFile is one sample `gallop sample --out` wrote: its file (a name
// in the list's folder), where it came from (chain from 0) and its state,
// from which the tool replays it.
type SampleFile struct {
	File      string          `json:"file"`
	Chain     int             `json:"chain"`
	Iteration int             `json:"iteration"`
	LogP      float64         `json:"log_p"`
	State     json.RawMessage `json:"state"`
}

// WriteSampleFiles writes list to path as JSON, atomically (a farm's
// merge replaces the list a reader may be reading).
func WriteSampleFiles(path string, list []SampleFile) error {
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(data, '\n'))
}

// Flags implements Settings.
func (b *Ball2DSettings) Flags() []string {
	return []string{"--scenario", "ball2d", "--target", words.Float(b.Target), "--sigma", words.Float(b.Sigma), "--tolerance", words.Float(b.Tolerance)}
}

// Flags implements Settings.
func (b *BowlingSettings) Flags() []string {
	return []string{"--scenario", "bowling", "--pins", b.Pins, "--lambda", words.Float(math.Exp(b.LogLam))}
}

// Flags implements Settings.
func (s *SpellSettings) Flags() []string {
	return []string{"--scenario", "spell", "--word", strings.Join(s.Fill, "/"), "--balls", strconv.Itoa(s.Balls), "--lambda", words.Float(math.Exp(s.LogLam))}
}

// Flags implements Settings. The proposal weights go in --weights, which
// overrides --die-weights.
func (d *DiceSettings) Flags() []string {
	return []string{"--scenario", "dice", "--face", strconv.Itoa(d.Face), "--die-target", words.Float(d.Target[0]) + "," + words.Float(d.Target[1]),
		"--die-sigma", words.Float(d.Sigma), "--die-tolerance", words.Float(d.Tolerance), "--lambda", words.Float(math.Exp(d.LogLam))}
}

// RunOnFarm runs what Start would with the scenario's and the chains'
// settings of now as `gallop sample` on the farm (Farm's settings, the
// chains split among the shards); when it succeeds, the most different
// satisfying samples of every chain fill the scenario's gallery as a run's
// would, each replayed from its state (favourites work as for a run of
// the tool), with no plots. What is wrong is reported with h.Error and
// submits nothing.
func (t *Gallery) RunOnFarm(h tools.Host) {
	t.defaults()
	if err := t.check(); err != nil {
		h.Error(err)
		return
	}
	k, s := t.scenario, t.Settings()
	m, err := s.Model()
	if err != nil {
		h.Error(fmt.Errorf("%s: %w", scenarios[k].Name, err))
		return
	}
	raw, err := json.Marshal(s)
	if err != nil {
		h.Error(err)
		return
	}
	weights := t.Weights
	if len(weights) != len(m.Weights) {
		weights = m.Weights
	}
	ws := make([]string, len(weights))
	for i, w := range weights {
		ws[i] = words.Float(w)
	}
	// The seed as Start takes it, uint64 of the field, also when negative
	// (the command's --seed is unsigned).
	seed := strconv.FormatUint(uint64(t.Seed), 10)
	cmd := append([]string{"sample"}, s.Flags()...)
	cmd = append(cmd, "--chains", strconv.Itoa(int(t.Chains)), "--iterations", strconv.Itoa(int(t.Iterations)), "--seed", seed,
		"--weights", strings.Join(ws, ","), "--distinct", strconv.Itoa(maxThumbs), "--fps", strconv.Itoa(fps), "--json")
	iterations := int(t.Iterations)
	t.Farm.Submit(h, farmrun.Request{
		Tool: "gallery",
		Plan: SamplePlan,
		Command: func(_ context.Context, dir string) ([]string, error) {
			return append(cmd, "--out", filepath.Join(dir, "samples")), nil
		},
		Load: func(ctx context.Context, dir string, out []byte) (func() error, error) {
			snap, err := loadSamples(ctx, m, filepath.Join(dir, "samples"), out)
			if err != nil {
				return nil, err
			}
			r := &run{scenario: scenarios[k].Name, settings: raw, iterations: iterations}
			r.task.Latest.Publish(snap)
			return func() error { return t.farmed(h, k, r) }, nil
		},
	})
}

// loadSamples reads what `gallop sample --json --out dir` wrote: each
// chain's report from out, each sample replayed from its state in dir's
// list; it returns them as a run's last snapshot.
func loadSamples(ctx context.Context, m *Model, dir string, out []byte) (*Snapshot, error) {
	snap := &Snapshot{Final: true}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var c struct {
			Iterations     int     `json:"iterations"`
			AcceptanceRate float64 `json:"acceptance_rate"`
			FirstSatisfied int     `json:"first_satisfied"`
			SatisfiedAfter float64 `json:"satisfied_fraction"`
			Satisfying     int     `json:"satisfying"`
			BestMet        int     `json:"best_met"`
			Constraints    int     `json:"constraints"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("the report of gallop sample: %w", err)
		}
		snap.Stats = append(snap.Stats, mcmc.Stats{Iterations: c.Iterations, AcceptanceRate: c.AcceptanceRate, FirstSatisfied: c.FirstSatisfied,
			SatisfiedAfter: c.SatisfiedAfter, BestMet: c.BestMet, Of: c.Constraints})
		snap.Kept = append(snap.Kept, c.Satisfying)
		snap.Done += c.Iterations
	}
	if len(snap.Stats) == 0 {
		return nil, errors.New("the report of gallop sample has no chains")
	}
	snap.Total = snap.Done
	data, err := os.ReadFile(filepath.Join(dir, SamplesList))
	if err != nil {
		return nil, err
	}
	var list []SampleFile
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", SamplesList, err)
	}
	for _, f := range list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		anim, err := m.Replay(f.State, fps)
		if err != nil {
			return nil, fmt.Errorf("chain %d, iteration %d: %w", f.Chain+1, f.Iteration, err)
		}
		smp, err := newSample(plausible.Entry{Chain: f.Chain, Iteration: f.Iteration, LogP: f.LogP}, f.State, anim)
		if err != nil {
			return nil, fmt.Errorf("chain %d, iteration %d: %w", f.Chain+1, f.Iteration, err)
		}
		snap.Samples = append(snap.Samples, smp)
	}
	return snap, nil
}

// farmed makes r, the samples of a farm run of scenario k, that
// scenario's last run (on the UI thread), naming the chains that never
// satisfied the constraints as a run's end does.
func (t *Gallery) farmed(h tools.Host, k int, r *run) error {
	if t.closed {
		return errors.New("gallery: the tool was closed")
	}
	if len(t.runs) != len(scenarios) {
		t.runs = make([]*run, len(scenarios))
	}
	if old := t.runs[k]; old != nil {
		old.task.Cancel()
	}
	snap, _ := r.task.Take()
	for c, st := range snap.Stats {
		if st.FirstSatisfied < 0 {
			r.unsatisfied = append(r.unsatisfied, fmt.Sprintf("chain %d never satisfied the constraints in %d iterations", c+1, st.Iterations))
		}
	}
	t.runs[k] = r
	h.Info("Gallery: %d distinct satisfying samples from the farm", len(snap.Samples))
	return nil
}
