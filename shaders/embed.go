// Package shaders holds the GLSL sources of the viewport, embedded in the
// binary. Every program targets OpenGL 3.3 core (#version 330 core).
//
//   - mesh.vert / mesh.frag: lit triangle meshes, smooth (per-vertex normals
//     recomputed by the CPU for every frame of a clip) or flat (face normals
//     from screen-space derivatives), with an optional per-vertex colour for
//     heat-map overlays and a wireframe pass that reuses the same program.
//   - line.vert / line.frag: coloured lines (grid, axes, box outlines).
//   - point.vert / point.frag: round screen-space points (selected vertices,
//     handles), pulled slightly toward the camera so they sit on the surface.
package shaders

import (
	"embed"
	"fmt"
)

//go:embed *.vert *.frag
var files embed.FS

// Source returns the text of the named shader file, NUL-terminated as
// OpenGL's C API wants it.
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("shader %s: %w", name, err)
	}
	return string(b) + "\x00", nil
}
