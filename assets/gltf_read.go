package assets

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
)

// What baking animations into clips may allocate: frames × vertices over
// every clip of a file, at most gltfBakePerByte positions per byte of the
// document's buffers (the geometry and keys the clips are made of), at
// least gltfMinBake (4M positions, 96 MB) for small files and never more
// than gltfMaxPositions (2^25 positions, 800 MB). A file of a few hundred
// bytes that asks for a long animation of a large zero-filled mesh gets an
// error, not an allocation of gigabytes.
const (
	gltfBakePerByte  = 64
	gltfMinBake      = 1 << 22
	gltfMaxPositions = 1 << 25
)

// ReadGLTF converts a decoded glTF 2.0 document into Objects: one per node
// of the default scene (scene 0 when none is named; every root node when
// the file has no scenes) that has a mesh, in depth-first order. name,
// usually the file's base name, prefixes every error.
//
// Each object's Mesh merges the node's mesh primitives, one Group per
// primitive (named after its material, or "primitive N"), with their
// vertices kept apart and in file order. Only TRIANGLES primitives are read.
// POSITION, NORMAL and TEXCOORD_0 are per vertex, so NormalTriangles and
// UVTriangles equal Triangles; normals and UVs are kept only when every
// primitive has them.
//
// Positions are the node's rest state: morph targets applied with the
// default weights (node.weights, else mesh.weights, else zero). A mesh
// without a skin is moved by its node's global matrix through the hierarchy
// (normals too, and the winding reversed when that matrix mirrors). A
// skinned mesh is not (the node's transform is ignored, as the spec says):
// its positions stay in bind space and its skin becomes Object.Rig, with
// joints ordered so that parents precede children (a joint's parent is its
// nearest ancestor node that is also a joint of the skin; the transforms of
// other nodes in between, and of a root joint's ancestors, are folded into
// the joint's Rest), inverse bind matrices from the skin (identity when
// absent), and per-vertex weights from JOINTS_n / WEIGHTS_n with zero
// weights dropped and the rest normalised to sum to 1.
//
// Object.Clip bakes the first animation of the file with a channel that
// moves the object (its morph weights; for a rigid mesh its node or an
// ancestor; for a skinned mesh a joint or an ancestor of one), evaluated as
// the spec says (LINEAR with slerp for rotations, STEP, CUBICSPLINE) at
// the rate chosen by the key times: if they lie on a uniform grid, the
// grid's rate raised by an integer factor to at least 24 fps so that every
// key is a frame (RiggedSimple: 24 fps), else DefaultFPS. Frame i is at
// time i/FPS, and the frames cover [0, the animation's last key]. For a
// skinned mesh Object.Skin holds the joints' local transforms per frame and
// the clip is the rig's skinning of them. A rigid mesh's clip holds its
// world positions per frame, so a file of node-animated meshes (such as
// SaveRigidGLTF writes) gives one animated object per mesh node. Each
// animation is evaluated once per frame for all the objects it moves.
// Later animations are not read into objects (they are still checked).
//
// Coordinates are used as they are (glTF's are metres, +Y up); texture
// coordinates are flipped to the bottom-left origin of Mesh.UVs (OBJ's):
// v = 1 - v_glTF.
//
// ReadGLTF checks every index and accessor it uses and returns an error
// naming the element, never panicking, on malformed input. A baked clip may
// have at most 65536 frames, and all baked clips together at most
// max(4M, 64 × buffer bytes) positions (frames × vertices), 2^25 at most.
func ReadGLTF(doc *gltf.Document, name string) ([]*Object, error) {
	return ReadGLTFAnimation(doc, name, "")
}

// ReadGLTFAnimation is ReadGLTF reading the animation called anim in place
// of the first one (with anim empty, the same as ReadGLTF). It fails when
// the file has no animation of that name.
func ReadGLTFAnimation(doc *gltf.Document, name, anim string) ([]*Object, error) {
	objs, err := readGLTF(doc, strings.TrimSuffix(name, filepath.Ext(name)), anim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return objs, nil
}

// GLTFAnimationNames returns the names of doc's animations, in order (an
// unnamed one is called "animation N").
func GLTFAnimationNames(doc *gltf.Document) []string {
	names := make([]string, len(doc.Animations))
	for i, a := range doc.Animations {
		if a != nil && a.Name != "" {
			names[i] = a.Name
		} else {
			names[i] = fmt.Sprintf("animation %d", i)
		}
	}
	return names
}

// readGLTF converts the mesh nodes of doc's scene; objects without a node
// or mesh name are named after the file (base, without extension). A
// non-empty anim restricts the animations read to the one of that name.
func readGLTF(doc *gltf.Document, base, anim string) ([]*Object, error) {
	r, err := newGLTFReader(doc)
	if err != nil {
		return nil, err
	}
	if anim != "" {
		var keep []*gltfAnimation
		for _, a := range r.anims {
			if a.name == anim {
				keep = append(keep, a)
			}
		}
		if len(keep) == 0 {
			return nil, fmt.Errorf("no animation called %q (the file has %s)", anim, quotedList(GLTFAnimationNames(doc)))
		}
		r.anims = keep[:1]
	}
	nodes, err := r.meshNodes()
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no node with a mesh in the scene")
	}
	objs := make([]*Object, len(nodes))
	var bakes []*gltfBake
	for i, n := range nodes {
		o, b, err := r.object(n)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", n, err)
		}
		if o.Name == "" {
			o.Name = base
			if len(nodes) > 1 {
				o.Name = fmt.Sprintf("%s %d", base, i+1)
			}
		}
		objs[i] = o
		if b != nil {
			b.node = n
			bakes = append(bakes, b)
		}
	}
	if err := r.bakeAll(bakes); err != nil {
		return nil, err
	}
	for i, o := range objs {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("node %d: %w", nodes[i], err)
		}
	}
	return objs, nil
}

// gltfReader holds a document's checked node hierarchy and animations.
type gltfReader struct {
	doc       *gltf.Document
	parent    []int // parent node, -1 for a root
	order     []int // every node, parents before children
	restTRS   []Transform
	restLocal []mgl64.Mat4
	rest      *gltfPose
	anims     []*gltfAnimation
	// bakeLeft is how many positions the clips baked from now on may
	// still hold (see gltfBakePerByte).
	bakeLeft int
}

func newGLTFReader(doc *gltf.Document) (*gltfReader, error) {
	nn := len(doc.Nodes)
	r := &gltfReader{doc: doc, parent: make([]int, nn), restTRS: make([]Transform, nn), restLocal: make([]mgl64.Mat4, nn)}
	bufferBytes := 0
	for _, b := range doc.Buffers {
		if b != nil {
			bufferBytes += len(b.Data)
		}
	}
	r.bakeLeft = min(gltfMaxPositions, max(gltfMinBake, gltfBakePerByte*bufferBytes))
	for i := range r.parent {
		r.parent[i] = -1
	}
	for i, n := range doc.Nodes {
		if n == nil {
			return nil, fmt.Errorf("node %d: null", i)
		}
		for _, c := range n.Children {
			switch {
			case c < 0 || c >= nn:
				return nil, fmt.Errorf("node %d: child %d does not exist (%d nodes)", i, c, nn)
			case r.parent[c] >= 0:
				return nil, fmt.Errorf("node %d: child %d already has parent %d", i, c, r.parent[c])
			}
			r.parent[c] = i
		}
		if m := n.MatrixOrDefault(); m != gltf.DefaultMatrix {
			r.restLocal[i] = mgl64.Mat4(m)
			r.restTRS[i] = decomposeMat4(r.restLocal[i])
		} else {
			rot := n.RotationOrDefault()
			r.restTRS[i] = Transform{
				Translation: n.Translation,
				Rotation:    quatXYZW(rot[:]).Normalize(),
				Scale:       n.ScaleOrDefault(), // all-zero counts as unset, as in qmuntal/gltf
			}
			r.restLocal[i] = r.restTRS[i].Mat4()
		}
	}
	for i := range r.parent {
		if r.parent[i] < 0 {
			r.order = append(r.order, i)
		}
	}
	for k := 0; k < len(r.order); k++ {
		r.order = append(r.order, doc.Nodes[r.order[k]].Children...)
	}
	if len(r.order) < nn {
		return nil, fmt.Errorf("the node hierarchy has a cycle")
	}
	r.rest = newPose(nn)
	r.pose(r.rest, nil, 0)
	for ai := range doc.Animations {
		a, err := parseAnimation(doc, ai, r.nodeTargets)
		if err != nil {
			return nil, err
		}
		r.anims = append(r.anims, a)
	}
	return r, nil
}

// nodeTargets returns the number of morph targets of node n's mesh.
func (r *gltfReader) nodeTargets(n int) (int, error) {
	node := r.doc.Nodes[n]
	if node.Mesh == nil {
		return 0, fmt.Errorf("node has no mesh")
	}
	m, err := r.mesh(*node.Mesh)
	if err != nil {
		return 0, err
	}
	if len(m.Primitives) == 0 || m.Primitives[0] == nil || len(m.Primitives[0].Targets) == 0 {
		return 0, fmt.Errorf("mesh %d has no morph targets", *node.Mesh)
	}
	return len(m.Primitives[0].Targets), nil
}

// mesh returns mesh i, checking that it exists.
func (r *gltfReader) mesh(i int) (*gltf.Mesh, error) {
	if i < 0 || i >= len(r.doc.Meshes) || r.doc.Meshes[i] == nil {
		return nil, fmt.Errorf("mesh %d does not exist (%d meshes)", i, len(r.doc.Meshes))
	}
	return r.doc.Meshes[i], nil
}

// meshNodes returns the nodes with a mesh in the default scene, depth first.
func (r *gltfReader) meshNodes() ([]int, error) {
	doc := r.doc
	var roots []int
	if len(doc.Scenes) > 0 {
		s := 0
		if doc.Scene != nil {
			s = *doc.Scene
		}
		if s < 0 || s >= len(doc.Scenes) || doc.Scenes[s] == nil {
			return nil, fmt.Errorf("scene %d does not exist (%d scenes)", s, len(doc.Scenes))
		}
		roots = doc.Scenes[s].Nodes
	} else {
		for n, p := range r.parent {
			if p < 0 {
				roots = append(roots, n)
			}
		}
	}
	var out []int
	seen := make([]bool, len(doc.Nodes))
	var visit func(n int)
	visit = func(n int) {
		if seen[n] {
			return
		}
		seen[n] = true
		if doc.Nodes[n].Mesh != nil {
			out = append(out, n)
		}
		for _, c := range doc.Nodes[n].Children {
			visit(c)
		}
	}
	for _, n := range roots {
		if n < 0 || n >= len(doc.Nodes) {
			return nil, fmt.Errorf("scene node %d does not exist (%d nodes)", n, len(doc.Nodes))
		}
		visit(n)
	}
	return out, nil
}

// gltfMesh is a node's mesh as read: base positions in mesh space, morph
// target position deltas, and raw skin influences (skin joint indices,
// unnormalised weights), nil when the primitives have no JOINTS_0.
type gltfMesh struct {
	mesh      *Mesh
	targets   [][]Vec3
	influence [][]Influence
}

func (r *gltfReader) readMesh(mi int) (*gltfMesh, error) {
	gm, err := r.mesh(mi)
	if err != nil {
		return nil, err
	}
	if len(gm.Primitives) == 0 {
		return nil, fmt.Errorf("mesh %d: no primitives", mi)
	}
	out := &gltfMesh{mesh: &Mesh{Name: gm.Name}}
	all := func(attr string) bool {
		for _, p := range gm.Primitives {
			if p == nil {
				return false
			}
			if _, ok := p.Attributes[attr]; !ok {
				return false
			}
		}
		return true
	}
	withNormals, withUVs, withSkin := all(gltf.NORMAL), all(gltf.TEXCOORD_0), all(gltf.JOINTS_0)
	used := map[string]bool{}
	for pi, p := range gm.Primitives {
		if p == nil {
			return nil, fmt.Errorf("mesh %d: primitive %d: null", mi, pi)
		}
		if pi == 0 {
			out.targets = make([][]Vec3, len(p.Targets))
		} else if len(p.Targets) != len(out.targets) {
			return nil, fmt.Errorf("mesh %d: primitive %d has %d morph targets, primitive 0 has %d", mi, pi, len(p.Targets), len(out.targets))
		}
		first := len(out.mesh.Triangles)
		if err := r.readPrimitive(out, p, withNormals, withUVs, withSkin); err != nil {
			return nil, fmt.Errorf("mesh %d: primitive %d: %w", mi, pi, err)
		}
		g := Group{Name: fmt.Sprintf("primitive %d", pi)}
		if p.Material != nil && *p.Material >= 0 && *p.Material < len(r.doc.Materials) {
			if mat := r.doc.Materials[*p.Material]; mat != nil && mat.Name != "" && !used[mat.Name] {
				g.Name = mat.Name
			}
		}
		used[g.Name] = true
		for f := first; f < len(out.mesh.Triangles); f++ {
			g.Triangles = append(g.Triangles, f)
		}
		out.mesh.Groups = append(out.mesh.Groups, g)
	}
	m := out.mesh
	if withNormals {
		m.NormalTriangles = append([][3]int(nil), m.Triangles...)
	}
	if withUVs {
		m.UVTriangles = append([][3]int(nil), m.Triangles...)
	}
	return out, nil
}

// readPrimitive appends primitive p's vertices, triangles and attributes.
func (r *gltfReader) readPrimitive(out *gltfMesh, p *gltf.Primitive, withNormals, withUVs, withSkin bool) error {
	if p.Mode != gltf.PrimitiveTriangles {
		return fmt.Errorf("mode %v: only TRIANGLES primitives are supported", p.Mode)
	}
	attr := func(name string, t gltf.AccessorType, nv int) ([]float64, error) {
		i, ok := p.Attributes[name]
		if !ok {
			return nil, fmt.Errorf("no %s attribute", name)
		}
		a, v, err := readAccessor(r.doc, i, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if nv >= 0 && a.Count != nv {
			return nil, fmt.Errorf("%s: accessor %d has %d elements, POSITION has %d", name, i, a.Count, nv)
		}
		return v, nil
	}
	pos, err := attr(gltf.POSITION, gltf.AccessorVec3, -1)
	if err != nil {
		return err
	}
	m := out.mesh
	nv, base := len(pos)/3, len(m.Positions)
	for v := 0; v < nv; v++ {
		m.Positions = append(m.Positions, Vec3{pos[3*v], pos[3*v+1], pos[3*v+2]})
	}
	if err := r.readIndices(m, p, nv, base); err != nil {
		return err
	}
	if withNormals {
		nrm, err := attr(gltf.NORMAL, gltf.AccessorVec3, nv)
		if err != nil {
			return err
		}
		for v := 0; v < nv; v++ {
			m.Normals = append(m.Normals, Vec3{nrm[3*v], nrm[3*v+1], nrm[3*v+2]})
		}
	}
	if withUVs {
		uv, err := attr(gltf.TEXCOORD_0, gltf.AccessorVec2, nv)
		if err != nil {
			return err
		}
		for v := 0; v < nv; v++ {
			m.UVs = append(m.UVs, Vec2{uv[2*v], 1 - uv[2*v+1]})
		}
	}
	for k, t := range p.Targets {
		d := make([]Vec3, nv)
		if i, ok := t[gltf.POSITION]; ok {
			a, v, err := readAccessor(r.doc, i, gltf.AccessorVec3)
			if err != nil {
				return fmt.Errorf("morph target %d: POSITION: %w", k, err)
			}
			if a.Count != nv {
				return fmt.Errorf("morph target %d: POSITION: accessor %d has %d elements, POSITION has %d", k, i, a.Count, nv)
			}
			for j := range d {
				d[j] = Vec3{v[3*j], v[3*j+1], v[3*j+2]}
			}
		}
		out.targets[k] = append(out.targets[k], d...)
	}
	if withSkin {
		infl := make([][]Influence, nv)
		for set := 0; ; set++ {
			jn, wn := fmt.Sprintf("JOINTS_%d", set), fmt.Sprintf("WEIGHTS_%d", set)
			if _, ok := p.Attributes[jn]; !ok {
				break
			}
			if err := r.readInfluences(infl, p, jn, wn, attr); err != nil {
				return err
			}
		}
		out.influence = append(out.influence, infl...)
	}
	return nil
}

// readIndices appends the triangles of a primitive whose vertices start
// at base.
func (r *gltfReader) readIndices(m *Mesh, p *gltf.Primitive, nv, base int) error {
	var idx []float64
	if p.Indices == nil {
		idx = make([]float64, nv)
		for i := range idx {
			idx[i] = float64(i)
		}
	} else {
		a, v, err := readAccessor(r.doc, *p.Indices, gltf.AccessorScalar)
		if err != nil {
			return fmt.Errorf("indices: %w", err)
		}
		if ct := a.ComponentType; ct == gltf.ComponentFloat || ct == gltf.ComponentByte || ct == gltf.ComponentShort || a.Normalized {
			return fmt.Errorf("indices: accessor %d: component type %v, want unsigned byte, short or int", *p.Indices, ct)
		}
		idx = v
	}
	if len(idx)%3 != 0 {
		return fmt.Errorf("%d vertex indices do not make whole triangles", len(idx))
	}
	for k := 0; k < len(idx); k += 3 {
		var t [3]int
		for c := range t {
			i := int(idx[k+c])
			if i >= nv {
				return fmt.Errorf("triangle %d: vertex index %d out of range [0, %d)", k/3, i, nv)
			}
			t[c] = base + i
		}
		m.Triangles = append(m.Triangles, t)
	}
	return nil
}

// readInfluences adds one JOINTS_n / WEIGHTS_n set to infl.
func (r *gltfReader) readInfluences(infl [][]Influence, p *gltf.Primitive, jn, wn string, attr func(string, gltf.AccessorType, int) ([]float64, error)) error {
	nv := len(infl)
	joints, err := attr(jn, gltf.AccessorVec4, nv)
	if err != nil {
		return err
	}
	if a := r.doc.Accessors[p.Attributes[jn]]; (a.ComponentType != gltf.ComponentUbyte && a.ComponentType != gltf.ComponentUshort) || a.Normalized {
		return fmt.Errorf("%s: accessor %d: component type %v, want unsigned byte or short", jn, p.Attributes[jn], a.ComponentType)
	}
	weights, err := attr(wn, gltf.AccessorVec4, nv)
	if err != nil {
		return err
	}
	for v := range infl {
		for c := 0; c < 4; c++ {
			w := weights[4*v+c]
			if w < 0 {
				return fmt.Errorf("%s: vertex %d: negative weight %v", wn, v, w)
			}
			if w > 0 {
				infl[v] = append(infl[v], Influence{Joint: int(joints[4*v+c]), Weight: w})
			}
		}
	}
	return nil
}

// object converts mesh node n. When an animation moves it, the object's
// clip (and for a skinned mesh its joint animation) is still to be baked
// as the returned gltfBake says.
func (r *gltfReader) object(n int) (*Object, *gltfBake, error) {
	node := r.doc.Nodes[n]
	gm, err := r.readMesh(*node.Mesh)
	if err != nil {
		return nil, nil, err
	}
	w0 := r.doc.Meshes[*node.Mesh].Weights
	if len(node.Weights) > 0 {
		w0 = node.Weights
	}
	if len(w0) == 0 {
		w0 = make([]float64, len(gm.targets))
	} else if len(w0) != len(gm.targets) {
		return nil, nil, fmt.Errorf("%d default morph weights for %d targets", len(w0), len(gm.targets))
	}
	o := &Object{Name: node.Name, Mesh: gm.mesh}
	if o.Name == "" {
		o.Name = gm.mesh.Name
	}
	var b *gltfBake
	if node.Skin != nil {
		b, err = r.skinned(o, n, gm, w0)
	} else {
		b = r.rigid(o, n, gm, w0)
	}
	return o, b, err
}

// morph writes base + Σ w_k Δ_k into dst (grown as needed and returned).
func morph(dst, base []Vec3, targets [][]Vec3, w []float64) []Vec3 {
	dst = append(dst[:0], base...)
	for k, d := range targets {
		if w[k] == 0 {
			continue
		}
		for v := range dst {
			dst[v] = dst[v].Add(d[v].Mul(w[k]))
		}
	}
	return dst
}

// weightsAt returns the node's morph weights in pose p, or w0 when they
// are not animated.
func weightsAt(p *gltfPose, n int, w0 []float64) []float64 {
	if len(p.weights[n]) > 0 {
		return p.weights[n]
	}
	return w0
}

// firstAnimation returns the first animation with a channel for which
// moves returns true, or nil.
func (r *gltfReader) firstAnimation(moves func(gltfChannel) bool) *gltfAnimation {
	for _, a := range r.anims {
		for _, ch := range a.channels {
			if moves(ch) {
				return a
			}
		}
	}
	return nil
}

// gltfBake is an object's clip still to be evaluated from animation anim:
// frame returns the nv vertex positions of one frame given the pose of
// every node at that frame's time, and done receives the finished clip.
type gltfBake struct {
	node  int // the object's node, for error messages
	anim  *gltfAnimation
	nv    int
	frame func(p *gltfPose) ([]Vec3, error)
	done  func(clip *Clip)
}

// bakeAll evaluates the clips, posing the node hierarchy once per frame of
// each animation for all the objects it moves (a rigid-body animation
// moves every body: posing it per object would cost #bodies² × #frames).
func (r *gltfReader) bakeAll(bakes []*gltfBake) error {
	for len(bakes) > 0 {
		a := bakes[0].anim
		var now, later []*gltfBake
		for _, b := range bakes {
			if b.anim == a {
				now = append(now, b)
			} else {
				later = append(later, b)
			}
		}
		if err := r.bake(a, now); err != nil {
			return err
		}
		bakes = later
	}
	return nil
}

// bake evaluates animation a into the clips of bakes at the animation's
// frame rate.
func (r *gltfReader) bake(a *gltfAnimation, bakes []*gltfBake) error {
	fps := a.frameRate()
	nf, err := a.frames(fps)
	if err != nil {
		return fmt.Errorf("node %d: %w", bakes[0].node, err)
	}
	clips := make([]*Clip, len(bakes))
	for i, b := range bakes {
		n := nf * max(b.nv, 1)
		if n > r.bakeLeft {
			return fmt.Errorf("node %d: %s: %d frames of %d vertices is more than the %d positions this file may still bake (at most %d per byte of its buffers, %d for any file)", b.node, a.name, nf, b.nv, r.bakeLeft, gltfBakePerByte, gltfMinBake)
		}
		r.bakeLeft -= n
		clips[i] = &Clip{Name: a.name, FPS: fps, Frames: make([][]Vec3, nf)}
	}
	p := newPose(len(r.doc.Nodes))
	for f := 0; f < nf; f++ {
		r.pose(p, a, a.start+float64(f)/fps)
		for i, b := range bakes {
			if clips[i].Frames[f], err = b.frame(p); err != nil {
				return fmt.Errorf("node %d: %w", b.node, err)
			}
		}
	}
	for i, b := range bakes {
		b.done(clips[i])
	}
	return nil
}

// rigid finishes an object whose mesh has no skin, and returns its clip to
// bake when an animation moves it.
func (r *gltfReader) rigid(o *Object, n int, gm *gltfMesh, w0 []float64) *gltfBake {
	m := gm.mesh
	base := m.Positions
	g := r.rest.global[n]
	m.Positions = transformPoints(nil, g, morph(nil, base, gm.targets, w0))
	if len(m.Normals) > 0 {
		nm := g.Mat3().Inv().Transpose()
		for i, v := range m.Normals {
			if l := nm.Mul3x1(v); l.Len() > 0 {
				m.Normals[i] = l.Normalize()
			}
		}
	}
	if g.Mat3().Det() < 0 {
		for _, t := range [][][3]int{m.Triangles, m.NormalTriangles, m.UVTriangles} {
			for f := range t {
				t[f][1], t[f][2] = t[f][2], t[f][1]
			}
		}
	}
	a := r.firstAnimation(func(ch gltfChannel) bool {
		if ch.path == gltf.TRSWeights {
			return ch.node == n
		}
		return r.isAncestorOrSelf(ch.node, n)
	})
	if a == nil {
		return nil
	}
	var morphed []Vec3
	return &gltfBake{
		anim: a,
		nv:   len(base),
		frame: func(p *gltfPose) ([]Vec3, error) {
			morphed = morph(morphed, base, gm.targets, weightsAt(p, n, w0))
			return transformPoints(nil, p.global[n], morphed), nil
		},
		done: func(clip *Clip) { o.Clip = clip },
	}
}

// transformPoints writes m·p for each point into dst (grown as needed and
// returned), m being affine.
func transformPoints(dst []Vec3, m mgl64.Mat4, points []Vec3) []Vec3 {
	if cap(dst) < len(points) {
		dst = make([]Vec3, len(points))
	}
	dst = dst[:len(points)]
	for i, p := range points {
		dst[i] = Vec3{
			m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12],
			m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13],
			m[2]*p[0] + m[6]*p[1] + m[10]*p[2] + m[14],
		}
	}
	return dst
}

// isAncestorOrSelf reports whether node a is n or one of its ancestors.
func (r *gltfReader) isAncestorOrSelf(a, n int) bool {
	for ; n >= 0; n = r.parent[n] {
		if n == a {
			return true
		}
	}
	return false
}

// gltfJoint is a skin joint as placed in the rig.
type gltfJoint struct {
	node   int
	parent int   // rig index of the parent joint, -1 for a root
	chain  []int // non-joint nodes between the parent joint (or the scene root) and the joint, top down
}

// skinned finishes an object whose mesh is skinned, and returns its clip
// and joint animation to bake when an animation moves it.
func (r *gltfReader) skinned(o *Object, n int, gm *gltfMesh, w0 []float64) (*gltfBake, error) {
	doc := r.doc
	si := *doc.Nodes[n].Skin
	if si < 0 || si >= len(doc.Skins) || doc.Skins[si] == nil {
		return nil, fmt.Errorf("skin %d does not exist (%d skins)", si, len(doc.Skins))
	}
	if gm.influence == nil {
		return nil, fmt.Errorf("skin %d: mesh %d has no JOINTS_0 in every primitive", si, *doc.Nodes[n].Mesh)
	}
	joints, skinToRig, err := r.skinJoints(si)
	if err != nil {
		return nil, fmt.Errorf("skin %d: %w", si, err)
	}
	ibm, err := r.inverseBinds(si)
	if err != nil {
		return nil, fmt.Errorf("skin %d: %w", si, err)
	}
	rig := &Rig{Joints: make([]Joint, len(joints)), Weights: make([][]Influence, len(gm.influence))}
	for j, jt := range joints {
		name := doc.Nodes[jt.node].Name
		if name == "" {
			name = fmt.Sprintf("node %d", jt.node)
		}
		rig.Joints[j] = Joint{Name: name, Parent: jt.parent, Rest: r.jointLocal(r.rest, jt), InverseBind: ibm[jt.node]}
	}
	for v, infl := range gm.influence {
		w, err := normaliseInfluences(infl, skinToRig)
		if err != nil {
			return nil, fmt.Errorf("skin %d: vertex %d: %w", si, v, err)
		}
		rig.Weights[v] = w
	}
	m := gm.mesh
	base := m.Positions
	m.Positions = morph(nil, base, gm.targets, w0)
	o.Rig = rig

	moved := make([]bool, len(doc.Nodes))
	for _, jt := range joints {
		for a := jt.node; a >= 0 && !moved[a]; a = r.parent[a] {
			moved[a] = true
		}
	}
	a := r.firstAnimation(func(ch gltfChannel) bool {
		if ch.path == gltf.TRSWeights {
			return ch.node == n
		}
		return moved[ch.node]
	})
	if a == nil {
		return nil, nil
	}
	skin := &SkinAnimation{Name: a.name}
	var morphed []Vec3
	return &gltfBake{
		anim: a,
		nv:   len(base),
		frame: func(p *gltfPose) ([]Vec3, error) {
			local := make([]Transform, len(joints))
			for j, jt := range joints {
				local[j] = r.jointLocal(p, jt)
			}
			skin.Frames = append(skin.Frames, local)
			morphed = morph(morphed, base, gm.targets, weightsAt(p, n, w0))
			return rig.Skin(nil, morphed, local), nil
		},
		done: func(clip *Clip) {
			skin.FPS = clip.FPS
			o.Clip, o.Skin = clip, skin
		},
	}, nil
}

// jointLocal returns a joint's transform relative to its parent joint in
// pose p, with the nodes of its chain folded in.
func (r *gltfReader) jointLocal(p *gltfPose, jt gltfJoint) Transform {
	if len(jt.chain) == 0 {
		return p.trs[jt.node]
	}
	m := p.local[jt.chain[0]]
	for _, c := range jt.chain[1:] {
		m = m.Mul4(p.local[c])
	}
	return decomposeMat4(m.Mul4(p.local[jt.node]))
}

// skinJoints returns the joints of skin si in rig order (parents first,
// otherwise the skin's order) and the map from skin joint index to rig
// index.
func (r *gltfReader) skinJoints(si int) ([]gltfJoint, []int, error) {
	sk := r.doc.Skins[si]
	if len(sk.Joints) == 0 {
		return nil, nil, fmt.Errorf("no joints")
	}
	skinIndex := make(map[int]int, len(sk.Joints)) // node → skin joint index
	for k, n := range sk.Joints {
		if n < 0 || n >= len(r.doc.Nodes) {
			return nil, nil, fmt.Errorf("joint %d: node %d does not exist (%d nodes)", k, n, len(r.doc.Nodes))
		}
		if _, dup := skinIndex[n]; dup {
			return nil, nil, fmt.Errorf("joint %d: node %d is listed twice", k, n)
		}
		skinIndex[n] = k
	}
	parentJoint := make([]int, len(sk.Joints)) // skin joint index, or -1
	chains := make([][]int, len(sk.Joints))
	for k, n := range sk.Joints {
		parentJoint[k] = -1
		for a := r.parent[n]; a >= 0; a = r.parent[a] {
			if pj, ok := skinIndex[a]; ok {
				parentJoint[k] = pj
				break
			}
			chains[k] = append([]int{a}, chains[k]...)
		}
	}
	skinToRig := make([]int, len(sk.Joints))
	for k := range skinToRig {
		skinToRig[k] = -1
	}
	var joints []gltfJoint
	var place func(k int)
	place = func(k int) {
		if skinToRig[k] >= 0 {
			return
		}
		jt := gltfJoint{node: sk.Joints[k], parent: -1, chain: chains[k]}
		if pj := parentJoint[k]; pj >= 0 {
			place(pj)
			jt.parent = skinToRig[pj]
		}
		skinToRig[k] = len(joints)
		joints = append(joints, jt)
	}
	for k := range sk.Joints {
		place(k)
	}
	return joints, skinToRig, nil
}

// inverseBinds returns skin si's inverse bind matrices by joint node.
func (r *gltfReader) inverseBinds(si int) (map[int]mgl64.Mat4, error) {
	sk := r.doc.Skins[si]
	out := make(map[int]mgl64.Mat4, len(sk.Joints))
	for _, n := range sk.Joints {
		out[n] = mgl64.Ident4()
	}
	if sk.InverseBindMatrices == nil {
		return out, nil
	}
	a, v, err := readAccessor(r.doc, *sk.InverseBindMatrices, gltf.AccessorMat4)
	if err != nil {
		return nil, fmt.Errorf("inverseBindMatrices: %w", err)
	}
	if a.Count < len(sk.Joints) {
		return nil, fmt.Errorf("inverseBindMatrices: accessor %d has %d matrices for %d joints", *sk.InverseBindMatrices, a.Count, len(sk.Joints))
	}
	for k, n := range sk.Joints {
		out[n] = mgl64.Mat4(v[16*k : 16*k+16])
	}
	return out, nil
}

// normaliseInfluences maps a vertex's influences to rig joints, merging
// repeated joints, and scales the weights to sum to 1.
func normaliseInfluences(infl []Influence, skinToRig []int) ([]Influence, error) {
	var out []Influence
	sum := 0.0
next:
	for _, in := range infl {
		if in.Joint >= len(skinToRig) {
			return nil, fmt.Errorf("joint %d out of range [0, %d)", in.Joint, len(skinToRig))
		}
		j := skinToRig[in.Joint]
		sum += in.Weight
		for k := range out {
			if out[k].Joint == j {
				out[k].Weight += in.Weight
				continue next
			}
		}
		out = append(out, Influence{Joint: j, Weight: in.Weight})
	}
	if !(sum > 0) || sum > 1e300 {
		return nil, fmt.Errorf("joint weights sum to %v", sum)
	}
	for k := range out {
		out[k].Weight /= sum
	}
	return out, nil
}

// quotedList returns names quoted and joined by commas, or "none".
func quotedList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
