package assets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Format names a kind of file Gallop opens, by its extension.
type Format int

// Formats Gallop reads.
const (
	FormatUnknown Format = iota
	FormatOBJ
	FormatGLTF
	FormatProject
	FormatFolder // a folder of OBJ frames
)

// ProjectExt is the extension of Gallop project files.
const ProjectExt = ".gallop"

// DetectFormat tells what path holds from its extension, or whether it is a
// folder.
func DetectFormat(path string) Format {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return FormatFolder
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".obj":
		return FormatOBJ
	case ".gltf", ".glb":
		return FormatGLTF
	case ProjectExt:
		return FormatProject
	}
	return FormatUnknown
}

// Import reads mesh files into objects: one .obj file gives a static mesh,
// several .obj files or a folder of them give one animated mesh (an OBJ
// sequence), a .gltf or .glb file gives its objects. progress, if not nil,
// is called as frames of a sequence finish. Every object gets a Source
// naming the absolute paths it came from.
func Import(ctx context.Context, paths []string, progress func(done, total int)) ([]*Object, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no file given")
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		abs[i] = a
	}
	if len(abs) == 1 {
		switch DetectFormat(abs[0]) {
		case FormatOBJ:
			return LoadSource(ctx, &Source{Kind: SourceOBJ, Paths: abs}, progress)
		case FormatGLTF:
			return LoadSource(ctx, &Source{Kind: SourceGLTF, Paths: abs, Index: -1}, progress)
		case FormatFolder:
			return LoadSource(ctx, &Source{Kind: SourceOBJSequence, Paths: abs}, progress)
		case FormatProject:
			return nil, fmt.Errorf("%s: a project, not a mesh file (open it instead)", abs[0])
		default:
			if _, err := os.Stat(abs[0]); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s: unknown file type %q (Gallop reads .obj, .gltf, .glb, folders of .obj frames and .gallop projects)", abs[0], filepath.Ext(abs[0]))
		}
	}
	for _, p := range abs {
		if DetectFormat(p) != FormatOBJ {
			return nil, fmt.Errorf("%s: several files make an OBJ sequence, and this is not an .obj file", p)
		}
	}
	return LoadSource(ctx, &Source{Kind: SourceOBJSequence, Paths: abs}, progress)
}

// LoadAnimation reads a mesh animation: a folder of OBJ frames, or the
// first object of a glTF file that has an animation of at least two
// frames. It returns the mesh and its clip.
func LoadAnimation(path string) (*Mesh, *Clip, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		files, err := ListOBJSequence(path)
		if err != nil {
			return nil, nil, err
		}
		return LoadOBJSequence(context.Background(), files, nil)
	}
	if DetectFormat(path) != FormatGLTF {
		return nil, nil, fmt.Errorf("%s: want a folder of OBJ frames or a .gltf / .glb file", path)
	}
	objs, err := LoadGLTF(path)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		if o.Clip != nil && len(o.Clip.Frames) >= 2 {
			return o.Mesh, o.Clip, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: no animated mesh (need an object with at least 2 frames)", filepath.Base(path))
}

// LoadSource reads the objects a Source names. For a glTF source with
// Index ≥ 0 it returns only that object; with Index < 0, all of the file's
// objects, each with its own index.
func LoadSource(ctx context.Context, src *Source, progress func(done, total int)) ([]*Object, error) {
	if len(src.Paths) == 0 {
		return nil, fmt.Errorf("%s source names no file", src.Kind)
	}
	switch src.Kind {
	case SourceOBJ:
		m, err := LoadOBJ(src.Paths[0])
		if err != nil {
			return nil, err
		}
		if m.Name == "" {
			m.Name = strings.TrimSuffix(filepath.Base(src.Paths[0]), filepath.Ext(src.Paths[0]))
		}
		return []*Object{{Name: m.Name, Mesh: m, Source: src}}, nil
	case SourceOBJSequence:
		files, err := ListOBJSequence(src.Paths...)
		if err != nil {
			return nil, err
		}
		m, clip, err := LoadOBJSequence(ctx, files, progress)
		if err != nil {
			return nil, err
		}
		return []*Object{{Name: clip.Name, Mesh: m, Clip: clip, Source: src}}, nil
	case SourceGLTF:
		objs, err := LoadGLTF(src.Paths[0])
		if err != nil {
			return nil, err
		}
		if src.Index >= 0 {
			if src.Index >= len(objs) {
				return nil, fmt.Errorf("%s: has %d objects, the project refers to object %d", src.Paths[0], len(objs), src.Index)
			}
			o := objs[src.Index]
			o.Source = src
			return []*Object{o}, nil
		}
		for i, o := range objs {
			o.Source = &Source{Kind: SourceGLTF, Paths: src.Paths, Index: i}
		}
		return objs, nil
	}
	return nil, fmt.Errorf("unknown source kind %q", src.Kind)
}

// sequenceName names an OBJ sequence, given its files or its folder,
// after the folder, or after the folder's parent when the folder has a
// generic name ("frames").
func sequenceName(paths []string) string {
	dir, err := filepath.Abs(paths[0])
	if err != nil {
		dir = paths[0]
	}
	if len(paths) > 1 || DetectFormat(dir) != FormatFolder {
		dir = filepath.Dir(dir)
	}
	name := filepath.Base(dir)
	switch strings.ToLower(name) {
	case "frames", "frame", "obj", "objs", "mesh", "meshes", ".":
		if parent := filepath.Base(filepath.Dir(dir)); parent != "." && parent != string(filepath.Separator) {
			return parent
		}
	}
	return name
}
