package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"gallop/assets"
	"gallop/internal/words"
)

// objectInfo is what `gallop info --json` prints per object.
type objectInfo struct {
	Name       string     `json:"name"`
	Vertices   int        `json:"vertices"`
	Triangles  int        `json:"triangles"`
	Frames     int        `json:"frames"`
	FPS        float64    `json:"fps"`
	Groups     int        `json:"groups"`
	GroupNames []string   `json:"group_names"`
	Joints     int        `json:"joints"`
	BBoxMin    [3]float64 `json:"bbox_min"`
	BBoxMax    [3]float64 `json:"bbox_max"`
}

// fileInfo is the whole output: the totals over the file's objects at top
// level, then each object.
type fileInfo struct {
	File string `json:"file"`
	objectInfo
	Objects []objectInfo `json:"objects"`
}

func runInfo(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gallop info [--json] FILE|DIR...\n\nPrints the vertices, triangles, frames, groups and bounding box of a mesh,\nan OBJ sequence (a folder or several .obj files), a glTF file or a project;\nof several files that are not all .obj, each in turn (--json: a line each).")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	// Several .obj files are one sequence; any other list is described a
	// file at a time (with --json, one object per line).
	groups := [][]string{fs.Args()}
	if fs.NArg() > 1 && !allOBJ(fs.Args()) {
		groups = groups[:0]
		for _, a := range fs.Args() {
			groups = append(groups, []string{a})
		}
	}
	for _, paths := range groups {
		if err := printInfo(paths, *asJSON, stdout); err != nil {
			return err
		}
	}
	return nil
}

// allOBJ reports whether every path is an .obj file.
func allOBJ(paths []string) bool {
	for _, p := range paths {
		if assets.DetectFormat(p) != assets.FormatOBJ {
			return false
		}
	}
	return true
}

// printInfo prints what paths (one file or folder, or an OBJ sequence)
// hold.
func printInfo(paths []string, asJSON bool, stdout io.Writer) error {
	objs, err := loadObjects(paths)
	if err != nil {
		return err
	}
	info := fileInfo{File: paths[0]}
	for i, o := range objs {
		oi := describe(o)
		info.Objects = append(info.Objects, oi)
		t := &info.objectInfo
		if i == 0 {
			*t = oi
			t.GroupNames = append([]string(nil), oi.GroupNames...)
			continue
		}
		t.Name = fmt.Sprintf("%d objects", len(objs))
		t.Vertices += oi.Vertices
		t.Triangles += oi.Triangles
		t.Frames = max(t.Frames, oi.Frames)
		t.Groups += oi.Groups
		t.GroupNames = append(t.GroupNames, oi.GroupNames...)
		t.Joints += oi.Joints
		for k := 0; k < 3; k++ {
			t.BBoxMin[k] = min(t.BBoxMin[k], oi.BBoxMin[k])
			t.BBoxMax[k] = max(t.BBoxMax[k], oi.BBoxMax[k])
		}
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(info)
	}
	for _, oi := range info.Objects {
		fmt.Fprintf(stdout, "%s\n  %s, %s, %s at %g fps, %s %v, %s\n  bbox min (%g, %g, %g) max (%g, %g, %g)\n",
			oi.Name, words.Count(oi.Vertices, "vertex", "vertices"), words.Count(oi.Triangles, "triangle", "triangles"), words.Count(oi.Frames, "frame", "frames"),
			oi.FPS, words.Count(oi.Groups, "group", "groups"), oi.GroupNames, words.Count(oi.Joints, "joint", "joints"),
			oi.BBoxMin[0], oi.BBoxMin[1], oi.BBoxMin[2], oi.BBoxMax[0], oi.BBoxMax[1], oi.BBoxMax[2])
	}
	return nil
}

func describe(o *assets.Object) objectInfo {
	oi := objectInfo{
		Name:       o.Name,
		Vertices:   o.Mesh.NumVertices(),
		Triangles:  o.Mesh.NumTriangles(),
		Frames:     o.NumFrames(),
		FPS:        o.FPS(),
		Groups:     len(o.Mesh.Groups),
		GroupNames: []string{},
	}
	for _, g := range o.Mesh.Groups {
		oi.GroupNames = append(oi.GroupNames, g.Name)
	}
	if o.Rig != nil {
		oi.Joints = len(o.Rig.Joints)
	}
	var lo, hi assets.Vec3
	if o.Clip != nil {
		lo, hi = o.Clip.Bounds()
	} else {
		lo, hi = assets.Bounds(o.Mesh.Positions)
	}
	oi.BBoxMin, oi.BBoxMax = lo, hi
	return oi
}

// loadObjects reads mesh files or a project, with no progress output.
func loadObjects(paths []string) ([]*assets.Object, error) {
	if len(paths) == 1 && assets.DetectFormat(paths[0]) == assets.FormatProject {
		p, err := assets.LoadProject(context.Background(), paths[0], nil)
		if err != nil {
			return nil, err
		}
		if len(p.Scene.Objects) == 0 {
			return nil, fmt.Errorf("%s: the project has no objects", paths[0])
		}
		return p.Scene.Objects, nil
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
	}
	return assets.Import(context.Background(), paths, nil)
}
