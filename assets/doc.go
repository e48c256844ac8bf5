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
package assets
