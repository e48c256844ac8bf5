package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gallop/assets"
)

func runConvert(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fps := fs.Float64("fps", 0, "set the clip's frame rate (frames per second)")
	morph := fs.Bool("morph", false, "glTF output: the clip as a morph-target animation (the default without a rig)")
	skin := fs.Bool("skin", false, "glTF output: the rig and its joint animation (inputs that carry a rig)")
	index := fs.Int("object", 0, "which object of a multi-object input to convert")
	frame := fs.Int("frame", -1, "OBJ output: write this frame (0-based) instead of the rest pose")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop convert [options] IN OUT

IN is an .obj, .gltf, .glb or .gallop file, several .obj frames, or a folder of them
(with several inputs, OUT is the last argument). OUT is chosen by extension:
  .glb / .gltf   glTF 2.0 (morph-target animation, or --skin for rigged inputs)
  .obj           one OBJ mesh (the rest pose, or --frame N)
  .gallop        a project with the object embedded
  a folder (a path ending in /, or an existing folder)
                 the clip as an OBJ sequence 1.obj, 2.obj, ...`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return errUsage
	}
	if *morph && *skin {
		return fmt.Errorf("--morph and --skin exclude each other")
	}
	in, out := fs.Args()[:fs.NArg()-1], fs.Arg(fs.NArg()-1)
	objs, err := loadObjects(in)
	if err != nil {
		return err
	}
	if *index < 0 || *index >= len(objs) {
		return fmt.Errorf("--object %d: %s has %d objects", *index, in[0], len(objs))
	}
	o := objs[*index]
	if *fps != 0 {
		if !(*fps > 0) || *fps > 1000 {
			return fmt.Errorf("--fps %g: want a frame rate in (0, 1000]", *fps)
		}
		if o.Clip != nil {
			o.Clip.FPS = *fps
		}
		if o.Skin != nil {
			o.Skin.FPS = *fps
		}
	}
	switch ext := strings.ToLower(filepath.Ext(out)); {
	case isFolder(out):
		return writeSequence(out, o)
	case ext == ".glb" || ext == ".gltf":
		mode := assets.ExportMorph
		if *skin {
			if o.Rig == nil || o.Skin == nil {
				return fmt.Errorf("--skin: %s carries no rig with a joint animation (use --morph)", in[0])
			}
			mode = assets.ExportSkin
		} else if !*morph && o.Rig != nil && o.Skin != nil {
			mode = assets.ExportSkin
		}
		return assets.SaveGLTF(out, o, assets.ExportOptions{Mode: mode})
	case ext == ".obj":
		pos := o.Mesh.Positions
		if *frame >= 0 {
			if *frame >= o.NumFrames() {
				return fmt.Errorf("--frame %d: the clip has %d frames", *frame, o.NumFrames())
			}
			pos = o.PositionsAt(*frame)
		}
		return assets.SaveOBJ(out, o.Mesh, pos)
	case ext == assets.ProjectExt:
		return assets.SaveProject(out, &assets.Project{Scene: &assets.Scene{Objects: []*assets.Object{o}}, Embed: true})
	default:
		return fmt.Errorf("%s: unknown output type %q (want .glb, .gltf, .obj, .gallop or a folder)", out, ext)
	}
}

// isFolder reports whether an output path names a folder: it ends in a
// path separator or is an existing folder.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) || err == nil && st.IsDir()
}

// writeSequence writes each frame of o's clip as dir/1.obj, dir/2.obj, ...
func writeSequence(dir string, o *assets.Object) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f := 0; f < o.NumFrames(); f++ {
		if err := assets.SaveOBJ(filepath.Join(dir, fmt.Sprintf("%d.obj", f+1)), o.Mesh, o.PositionsAt(f)); err != nil {
			return err
		}
	}
	return nil
}
