package assets

import (
	"errors"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// SaveRigidGLTF writes the rigid-body animation a to path as glTF 2.0:
// binary .glb, or .gltf JSON with the buffer embedded as a base64 data URI,
// chosen by the extension. It checks a with Validate first; on any error no
// file is written (the file goes through atomicfile.Write, so a previous
// file at path stays as it was).
//
// The default scene has one node per body, in order, then one per static
// part. A body's node carries its mesh (in the body's frame) and its frame
// 0 translation and rotation; a part's node carries its mesh as it is
// (world coordinates) and no transform. One animation, named after a, has
// per body a translation and a rotation channel, LINEAR, keyed at every
// frame (frame i at time i/FPS, float32; rotations normalised and kept in
// one hemisphere from key to key, so players interpolate along the shorter
// arc), and records the frame rate in its extras ({"fps": N}) as SaveGLTF
// does. A body with morph targets has a glTF mesh of its own whose
// primitive carries them (POSITION displacements, float32) with the frame-0
// weights as the mesh's default, and a weights channel keyed at every
// frame beside its translation and rotation.
//
// Morph weights are written in [0, 1], because players clamp them there
// (Blender's importer makes them shape-key values, which its sliders hold
// in [0, 1]; a clamped negative weight is a deformation lost): target k
// is written as sₖ·dₖ with weights (w − oₖ)/sₖ and the base shape as
// p + Σ oₖdₖ, where oₖ = min(0, the lowest weight of k) and sₖ = max(1,
// the highest − oₖ), which gives the same positions. A body whose weights
// all lie in [0, 1] is written as it is.
//
// Meshes are written as SaveGLTF writes them (POSITION with min and max,
// NORMAL from Mesh.Normals or else VertexNormals, TEXCOORD_0 when present;
// float32): meshes with identical geometry, whether the same *Mesh or
// equal copies, are written once and shared. Each distinct colour becomes
// one pbrMetallicRoughness material (baseColorFactor, not metallic,
// roughness 0.5), so Blender and three.js show the bodies in their colours.
//
// LoadGLTF reads such a file back into the objects a.Objects returns,
// within float32 precision, provided FPS is at most 240 (a higher rate is
// not taken from the extras, and frames are then baked at another rate).
func SaveRigidGLTF(path string, a *RigidAnimation) error {
	return saveGLTFDocument(path, func() (*gltf.Document, error) { return buildRigidGLTF(a) })
}

// buildRigidGLTF converts a into a glTF document with a single buffer.
func buildRigidGLTF(a *RigidAnimation) (*gltf.Document, error) {
	if a == nil {
		return nil, errors.New("no rigid animation to export")
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	doc := newGLTFDocument(a.Name)
	meshes := &gltfMeshes{doc: doc, materials: gltfMaterials{doc: doc}}
	nf := a.NumFrames()
	anim := newGLTFChannels(doc, a.Name, nf, a.FPS)
	for i := range a.Bodies {
		b := &a.Bodies[i]
		name := b.displayName(i)
		var mesh int
		var mr morphRange
		if len(b.Targets) > 0 {
			mr = newMorphRange(b)
			mesh = meshes.morphed(b, mr, name, b.color(i))
		} else {
			mesh = meshes.index(b.Mesh, name, b.color(i))
		}
		node := addNode(doc, &gltf.Node{
			Name:        name,
			Mesh:        gltf.Index(mesh),
			Translation: b.Positions[0],
			Rotation:    xyzw(b.Rotations[0].Normalize()),
		})
		doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, node)
		t := make([][3]float32, nf)
		for f, p := range b.Positions {
			t[f] = vec3f32(p)
		}
		if err := anim.add(node, gltf.TRSTranslation, t); err != nil {
			return nil, err
		}
		r := quatKeys(nf, func(f int) mgl64.Quat { return b.Rotations[f] })
		if err := anim.add(node, gltf.TRSRotation, r); err != nil {
			return nil, err
		}
		if nt := len(b.Targets); nt > 0 {
			w := make([]float32, 0, nf*nt)
			for _, row := range b.Weights {
				for k, x := range row {
					w = append(w, float32(mr.weight(k, x)))
				}
			}
			if err := anim.add(node, gltf.TRSWeights, w); err != nil {
				return nil, err
			}
		}
	}
	for i := range a.Static {
		p := &a.Static[i]
		name := p.displayName(i)
		node := addNode(doc, &gltf.Node{Name: name, Mesh: gltf.Index(meshes.index(p.Mesh, name, p.color()))})
		doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, node)
	}
	anim.finish()
	return doc, nil
}

// gltfMeshes writes each distinct geometry into a document once and makes
// one glTF mesh per pair of geometry and colour, its primitive sharing the
// geometry's accessors.
type gltfMeshes struct {
	doc       *gltf.Document
	materials gltfMaterials
	sources   []*Mesh         // distinct geometries, in the order written
	written   []*gltfGeometry // written[k] is sources[k] as written
	byMesh    map[*Mesh]int   // index into sources
	byPair    map[gltfMeshKey]int
}

// gltfMeshKey names a glTF mesh by geometry and material.
type gltfMeshKey struct{ geometry, material int }

// index returns the glTF mesh of m in colour rgb, writing the geometry
// and adding the material and the mesh as needed. A new mesh is named
// after m, else name.
func (c *gltfMeshes) index(m *Mesh, name string, rgb [3]float32) int {
	g := c.geometry(m)
	key := gltfMeshKey{g, c.materials.index(rgb)}
	if i, ok := c.byPair[key]; ok {
		return i
	}
	if c.byPair == nil {
		c.byPair = map[gltfMeshKey]int{}
	}
	if m.Name != "" {
		name = m.Name
	}
	c.doc.Meshes = append(c.doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{c.written[g].primitive(gltf.Index(key.material))}})
	c.byPair[key] = len(c.doc.Meshes) - 1
	return c.byPair[key]
}

// morphed returns a new glTF mesh for body b, which has morph targets: its
// base geometry (b's mesh moved as mr says, shared with other meshes of
// the same geometry), its colour's material, one POSITION target per morph
// target (the displacements of the glTF vertices, split copies included,
// scaled as mr says) and the frame-0 weights as the mesh's default
// weights.
func (c *gltfMeshes) morphed(b *RigidBody, mr morphRange, name string, rgb [3]float32) int {
	g := c.written[c.geometry(mr.base(b))]
	prim := g.primitive(gltf.Index(c.materials.index(rgb)))
	d := make([][3]float32, len(g.verts.src))
	for k, t := range b.Targets {
		for i, v := range g.verts.src {
			d[i] = vec3f32(t[v].Mul(mr.scale[k]))
		}
		prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(c.doc, d)})
	}
	if b.Mesh.Name != "" {
		name = b.Mesh.Name
	}
	w0 := make([]float64, len(b.Targets))
	for k, x := range b.Weights[0] {
		w0[k] = mr.weight(k, x)
	}
	c.doc.Meshes = append(c.doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{prim}, Weights: w0})
	return len(c.doc.Meshes) - 1
}

// morphRange maps a body's morph weights into [0, 1] (see SaveRigidGLTF):
// target k is written scaled by scale[k] and the base shape moved by
// offset[k] times it.
type morphRange struct {
	offset, scale []float64
}

// newMorphRange returns the range of b's weights: per target, the offset
// o = min(0, lowest weight) and the scale s = max(1, highest weight − o).
func newMorphRange(b *RigidBody) morphRange {
	nt := len(b.Targets)
	mr := morphRange{offset: make([]float64, nt), scale: make([]float64, nt)}
	hi := make([]float64, nt)
	for _, row := range b.Weights {
		for k, w := range row {
			mr.offset[k], hi[k] = min(mr.offset[k], w), max(hi[k], w)
		}
	}
	for k := range mr.scale {
		mr.scale[k] = max(1, hi[k]-mr.offset[k])
	}
	return mr
}

// weight returns weight w of target k as written: (w − o)/s, in [0, 1].
func (mr morphRange) weight(k int, w float64) float64 {
	return (w - mr.offset[k]) / mr.scale[k]
}

// base returns b's mesh with the targets' offsets added, p + Σ oₖdₖ: b's
// mesh itself when every offset is 0.
func (mr morphRange) base(b *RigidBody) *Mesh {
	if !slices.ContainsFunc(mr.offset, func(o float64) bool { return o != 0 }) {
		return b.Mesh
	}
	m := b.Mesh.Clone()
	for k, d := range b.Targets {
		if o := mr.offset[k]; o != 0 {
			for v := range m.Positions {
				m.Positions[v] = m.Positions[v].Add(d[v].Mul(o))
			}
		}
	}
	return m
}

// geometry returns the index of m's geometry in c.sources, writing it when
// no mesh written so far has the same geometry.
func (c *gltfMeshes) geometry(m *Mesh) int {
	if k, ok := c.byMesh[m]; ok {
		return k
	}
	if c.byMesh == nil {
		c.byMesh = map[*Mesh]int{}
	}
	k := slices.IndexFunc(c.sources, func(s *Mesh) bool { return sameGeometry(s, m) })
	if k < 0 {
		k = len(c.sources)
		c.sources = append(c.sources, m)
		c.written = append(c.written, writeGeometry(c.doc, m))
	}
	c.byMesh[m] = k
	return k
}

// sameGeometry reports whether a and b would be written identically:
// the same positions, triangles, UVs and normals (names and groups aside).
func sameGeometry(a, b *Mesh) bool {
	return slices.Equal(a.Positions, b.Positions) && slices.Equal(a.Triangles, b.Triangles) &&
		slices.Equal(a.UVs, b.UVs) && slices.Equal(a.UVTriangles, b.UVTriangles) &&
		slices.Equal(a.Normals, b.Normals) && slices.Equal(a.NormalTriangles, b.NormalTriangles)
}
