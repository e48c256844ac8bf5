package rig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/tools"
)

// sizes are the byte sizes of a skinned export and of the morph-target
// export of the same clip.
type sizes struct {
	skin, morph int64
}

// String reports the sizes for the panel and the status bar.
func (s sizes) String() string {
	return fmt.Sprintf("skinned %s, morph targets %s (%.1f×)", byteSize(s.skin), byteSize(s.morph), float64(s.morph)/float64(max(1, s.skin)))
}

// byteSize formats n bytes in kB or MB.
func byteSize(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.2f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
}

// writeSkinned writes skinned, a rig and its animation, to path as a
// skinned glTF (for the tool and `gallop rig --out` alike), then writes
// morph, the clip it was fitted to, as morph targets to a temporary file
// of the same kind to measure it, and returns both sizes.
func writeSkinned(path string, skinned, morph *assets.Object) (sizes, error) {
	opts := assets.ExportOptions{Mode: assets.ExportSkin, Influences: skinned.Rig.ExportInfluences()}
	if err := assets.SaveGLTF(path, skinned, opts); err != nil {
		return sizes{}, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return sizes{}, err
	}
	tmp, err := os.MkdirTemp("", "gallop-morph-")
	if err != nil {
		return sizes{}, err
	}
	defer os.RemoveAll(tmp)
	morphPath := filepath.Join(tmp, "morph"+filepath.Ext(path))
	if err := assets.SaveGLTF(morphPath, morph, assets.ExportOptions{Mode: assets.ExportMorph}); err != nil {
		return sizes{}, fmt.Errorf("measuring the morph-target export: %w", err)
	}
	mst, err := os.Stat(morphPath)
	if err != nil {
		return sizes{}, err
	}
	return sizes{skin: st.Size(), morph: mst.Size()}, nil
}

// Export asks where to save the result and writes it as a job; the
// report (both sizes) goes to the status bar and Exported.
func (t *Rig) Export(h tools.Host) {
	r := t.Result(h)
	if r == nil {
		h.Error(errors.New("rig: nothing to export; Start first"))
		return
	}
	h.SaveFile("Export skinned glTF", []string{"glb", "gltf"}, r.obj.Name+"-rig.glb", func(path string) {
		var got sizes
		h.Jobs().Start("Export "+filepath.Base(path), func(context.Context, jobs.Reporter) error {
			var err error
			o := r.obj
			got, err = writeSkinned(path, r.object(), &assets.Object{Name: o.Name, Mesh: o.Mesh, Clip: r.clip})
			return err
		}, func(err error) {
			if err != nil {
				h.Error(err)
				return
			}
			t.exported = fmt.Sprintf("%s: %s", filepath.Base(path), got)
			h.Info("Wrote %s: %s", path, got)
		})
	})
}
