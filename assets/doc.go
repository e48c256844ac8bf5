// Package assets is Gallop's data model and its file formats.
//
// The model is deliberately plain: a Mesh is a list of rest positions and
// triangles (with optional per-corner UVs and normals and named triangle
// groups), a Clip is a sequence of vertex positions over a mesh's fixed
// topology played at a frame rate, a Rig is a joint hierarchy with inverse
// bind matrices and sparse per-vertex joint weights, and a Scene is a list of
// Objects that tie these together. A RigidAnimation (bodies moved by a
// translation and a rotation per frame, over static parts) evaluates into
// Objects; primitives.go makes the meshes of physics shapes. A Project is a
// Scene plus the state of the application and of each tool, saved as a
// .gallop file.
//
// Readers and writers live one format per file (obj.go, objseq.go, gltf*.go,
// project.go; gltf_rigid.go writes rigid animations as node animations).
// Readers never panic on malformed input: they return errors that name the
// file and, where there is one, the line or element at fault.
//
// Geometry is float64 throughout (mgl64 vectors); conversion to float32
// happens only at the GPU and glTF boundaries.
//
// # Published slices are never changed in place
//
// A geometry slice (a Mesh's Positions or Triangles, a Clip frame, a
// solver's snapshot of positions, per-vertex colours) is immutable once it
// has been published: stored in a Mesh, Clip or Object that the document
// holds, handed to the viewport, or sent from a job to the UI. An edit
// makes a new slice and replaces the old one (an undoable command keeps
// the old slice to put back). Everyone relies on this: a save job encodes
// the document on another goroutine without copying it, a pose session
// reads the rest pose while the UI shows it, the renderer and the picking
// tree re-upload or rebuild only when a slice is a different slice (Same),
// not when its contents change. Code that needs to change positions copies
// first (slices.Clone).
package assets

import "unsafe"

// Same reports whether a and b are the same slice: the same length and the
// same first element in memory. By the rule above, the same published
// slice has the same contents, so Same is how caches notice a change.
func Same[T any](a, b []T) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
