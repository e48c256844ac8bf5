package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/solver/ensemble"
	tens "gallop/tools/ensemble"
)

// benchEnsemble prints the mesh ensemble figures (issue 13) on
// ensemble-banner: loading and the model, the motion graph's build with
// its statistics (seed 1, the defaults), the new interpenetrations at the
// unconstrained minimum and after the solver (the oracle), the player's
// cost per frame (median over runs of a minute's mean), ten minutes with
// the wind changing every 20 s, and a minute's compact export against the
// plain one.
func benchEnsemble(stdout io.Writer, data string, runs int) error {
	ctx := context.Background()
	dir := filepath.Join(data, "ensemble-banner")
	levels := []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3")}
	start := time.Now()
	d, e, err := tens.Load(ctx, levels, "", nil)
	if err != nil {
		return err
	}
	figure.Write(stdout, "ensemble_banner_load_seconds", time.Since(start).Seconds(), "s")
	start = time.Now()
	m, err := ensemble.NewModel(ctx, d, ensemble.Options{}, nil)
	if err != nil {
		return err
	}
	figure.Write(stdout, "ensemble_banner_model_seconds", time.Since(start).Seconds(), "s")
	figure.Write(stdout, "ensemble_banner_total_rank", float64(m.TotalRank()), "coordinates")
	g, st, err := ensemble.Build(ctx, m, ensemble.BuildOptions{Seed: 1}, nil, nil)
	if err != nil {
		return err
	}
	ok, cull, timeOut, _ := st.CSP.Fractions()
	_, tcd := st.CSP.TCD()
	figure.Write(stdout, "ensemble_banner_build_seconds", st.Seconds, "s")
	figure.Write(stdout, "ensemble_banner_transitions", float64(st.Found), "transitions")
	figure.Write(stdout, "ensemble_banner_seconds_per_transition", st.Seconds/float64(max(1, st.Found)), "s")
	figure.Write(stdout, "ensemble_banner_intervals_served", float64(st.Served)/float64(max(1, st.Intervals)), "of the intervals")
	figure.Write(stdout, "ensemble_banner_t_cd_seconds", tcd, "s")
	figure.Write(stdout, "ensemble_banner_n_local", st.CSP.NLocal(), "local searches")
	figure.Write(stdout, "ensemble_banner_contacts", st.CSP.MeanContacts(), "pairs")
	figure.Write(stdout, "ensemble_banner_ok", ok, "of the programs")
	figure.Write(stdout, "ensemble_banner_cull", cull, "of the programs")
	figure.Write(stdout, "ensemble_banner_timeout", timeOut, "of the programs")
	figure.Write(stdout, "ensemble_banner_phi_over_sync", st.MeanPhi/st.MeanPhi0, "mean Φ over synchronous Φ(0)")
	chk, err := tens.CheckTransitions(ctx, m, g.Transitions, tens.Oracle)
	if err != nil {
		return err
	}
	after, unconstrained := chk.Totals()
	figure.Write(stdout, "ensemble_banner_interpenetrations_unconstrained", unconstrained, "pairs per transition")
	figure.Write(stdout, "ensemble_banner_interpenetrations_after", float64(after), "pairs")
	return benchEnsemblePlayer(stdout, m, g, e, runs)
}

// benchEnsemblePlayer prints the player's figures on graph g of the
// banner's model m (ensemble e): its cost per frame, ten minutes' steps
// and a minute's compact export against the plain one.
func benchEnsemblePlayer(stdout io.Writer, m *ensemble.Model, g *ensemble.Graph, e *assets.Ensemble, runs int) error {
	minute := tens.PlayOptions{Frames: 1800, Winds: []int{0, 2, 1}, ChangeEvery: 600, Seed: 1}
	var perFrame float64
	if _, err := median(runs, func() error {
		r, err := tens.Play(m, g, minute, nil)
		if err == nil {
			perFrame = r.StepSeconds * 1000 / float64(minute.Frames)
		}
		return err
	}); err != nil {
		return err
	}
	figure.Write(stdout, "ensemble_banner_player_ms_per_frame", perFrame, "ms (one core)")
	long, err := tens.Play(m, g, tens.PlayOptions{Frames: 18000, Winds: []int{0, 2, 1}, ChangeEvery: 600, Seed: 1}, nil)
	if err != nil {
		return err
	}
	figure.Write(stdout, "ensemble_banner_10min_max_step_ratio", long.MaxStepRatio, "of the sources' largest step")
	figure.Write(stdout, "ensemble_banner_10min_max_step_ratio_data", long.MaxStepData, "of the data's largest step")

	minute.Record, minute.Keep = true, true
	r, err := tens.Play(m, g, minute, nil)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gallop-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "banner.glb")
	compact, err := tens.SaveCompact(out, r.Recording, m, e, "banner")
	if err != nil {
		return err
	}
	plain, err := tens.PlainSize(out, e, r.Positions, m.Dataset().FPS)
	if err != nil {
		return err
	}
	figure.Write(stdout, "ensemble_banner_minute_compact_mb", float64(compact)/1e6, "MB")
	figure.Write(stdout, "ensemble_banner_minute_plain_mb", float64(plain)/1e6, "MB")
	return nil
}
