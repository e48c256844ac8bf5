package gallery

import (
	"fmt"

	"gallop/assets"
	"gallop/solver/plausible"
)

// Animation turns a recording of a sample into the rigid animation Gallop
// shows and exports: each shape becomes a mesh (assets' primitives, turned
// and placed, merged when a shape has several pieces, with its explicit
// triangles), one mesh per shape, shared by the bodies that share it. It
// fails, naming the problem, on a recording that does not validate.
func Animation(rec *plausible.Recording) (*assets.RigidAnimation, error) {
	if err := rec.Validate(); err != nil {
		return nil, err
	}
	meshes := map[*plausible.Shape]*assets.Mesh{}
	mesh := func(s *plausible.Shape) *assets.Mesh {
		if m, ok := meshes[s]; ok {
			return m
		}
		m := shapeMesh(s)
		meshes[s] = m
		return m
	}
	a := &assets.RigidAnimation{Name: rec.Name, FPS: rec.FPS, View: rec.View, FocusLo: rec.FocusLo, FocusHi: rec.FocusHi}
	for _, b := range rec.Bodies {
		a.Bodies = append(a.Bodies, assets.RigidBody{Name: b.Name, Mesh: mesh(b.Shape), Color: b.Color, Positions: b.Positions, Rotations: b.Rotations})
	}
	for _, p := range rec.Static {
		a.Static = append(a.Static, assets.RigidPart{Name: p.Name, Mesh: mesh(p.Shape), Color: p.Color})
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("recording %q: %w", rec.Name, err)
	}
	return a, nil
}

// shapeMesh makes the mesh of a validated shape.
func shapeMesh(s *plausible.Shape) *assets.Mesh {
	var parts []*assets.Mesh
	for _, p := range s.Pieces {
		parts = append(parts, pieceMesh(p))
	}
	if len(s.Triangles) > 0 {
		parts = append(parts, &assets.Mesh{Positions: s.Positions, Triangles: s.Triangles})
	}
	m := parts[0]
	if len(parts) > 1 {
		m = assets.MergeMeshes(parts...)
	}
	if s.Name != "" {
		m.Name = s.Name
	}
	return m
}

// pieceMesh makes a primitive's mesh, turned by its rotation, then moved
// to its place.
func pieceMesh(p plausible.Piece) *assets.Mesh {
	var m *assets.Mesh
	switch p.Kind {
	case plausible.SpherePiece:
		m = assets.SphereMesh(p.Radius, p.Segments)
	case plausible.BoxPiece:
		m = assets.BoxMesh(p.Size)
	case plausible.CylinderPiece:
		m = assets.CylinderMesh(p.Radius, p.Length, p.Segments)
	case plausible.CapsulePiece:
		m = assets.CapsuleMesh(p.Radius, p.Length, p.Segments)
	}
	if p.Turned() {
		for k, v := range m.Positions {
			m.Positions[k] = p.Rot.Rotate(v)
		}
		for k, n := range m.Normals {
			m.Normals[k] = p.Rot.Rotate(n)
		}
	}
	if p.Pos != (assets.Vec3{}) {
		m.Translate(p.Pos)
	}
	return m
}
