// Package ensemble is the Ensemble tool's model: mesh ensembles (a banner of
// flags, a field of grass) simulated at a few wind levels, made into an
// endless, interpenetration-free animation by Mesh Ensemble Motion Graphs
// (James, Twigg, Cove and Wang 2007; gallop/solver/ensemble), the motion
// graph's file, and the exports of a played stretch.
package ensemble

import (
	"context"
	"fmt"
	"path/filepath"

	"gallop/assets"
	"gallop/solver/ensemble"
)

// Load reads the ensemble of the level folders dirs (and groupsPath, or
// the sidecar files beside them; see assets.LoadEnsemble) as a dataset of
// the model, at the data's frame rate, and checks it (Dataset.Validate).
func Load(ctx context.Context, dirs []string, groupsPath string, progress func(done, total int)) (*ensemble.Dataset, *assets.Ensemble, error) {
	e, err := assets.LoadEnsemble(ctx, dirs, groupsPath, progress)
	if err != nil {
		return nil, nil, err
	}
	d := Dataset(e)
	if err := d.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Dir(filepath.Clean(dirs[0])), err)
	}
	return d, e, nil
}

// Dataset returns e as the model's dataset (sharing its positions).
func Dataset(e *assets.Ensemble) *ensemble.Dataset {
	d := &ensemble.Dataset{Rest: e.Rest, FPS: assets.DefaultFPS}
	if len(e.Levels) > 0 && e.Levels[0].FPS > 0 {
		d.FPS = e.Levels[0].FPS
	}
	for _, g := range e.Groups {
		grp := ensemble.Group{Name: g.Name, First: g.First, Count: g.Count, Parent: g.Parent, Triangles: g.Triangles}
		for _, a := range g.Attach {
			grp.Attach = append(grp.Attach, ensemble.Attachment{Vertex: a[0], ParentVertex: a[1]})
		}
		d.Groups = append(d.Groups, grp)
	}
	for l, c := range e.Levels {
		lv := ensemble.Level{Name: c.Name, Frames: c.Frames}
		if l < len(e.Wind) {
			lv.Wind = e.Wind[l]
		}
		d.Levels = append(d.Levels, lv)
	}
	return d
}
