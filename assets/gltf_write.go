package assets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// ExportMode selects how SaveGLTF stores an object's animation.
type ExportMode int

const (
	// ExportAuto, the zero value, is ExportSkin for an object with both a
	// Rig and a joint animation (Skin), else ExportMorph.
	ExportAuto ExportMode = iota

	// ExportMorph stores the object's clip as morph targets, one per frame
	// (POSITION deltas from the rest positions), and an animation of the
	// mesh node's weights that shows frame i alone at time i/FPS, with
	// LINEAR blending between consecutive frames. An object without a clip
	// but with a rig and a joint animation is baked first; one with
	// neither is written as a static mesh.
	ExportMorph

	// ExportSkin stores the rig as a skin (one node per joint, with its rest
	// transform, and the inverse bind matrices), the vertex weights as
	// JOINTS_n / WEIGHTS_n sets of four, largest weight first, and the
	// joint animation, if any, as LINEAR translation, rotation and scale
	// channels keyed at every frame (a channel equal to the joint's rest
	// value in every frame is left out). The clip is not written.
	ExportSkin
)

// ExportOptions controls SaveGLTF. The zero value means ExportAuto.
type ExportOptions struct {
	Mode ExportMode // how to store the animation; ExportAuto (zero) picks one
}

// SaveGLTF writes obj to path as glTF 2.0: binary .glb, or .gltf JSON with
// the buffer embedded as a base64 data URI, chosen by the extension. The
// file is written through WriteFileAtomic, so an error leaves any previous
// file untouched.
//
// The mesh has one primitive with POSITION (the rest positions), NORMAL
// (Mesh.Normals, else VertexNormals of the rest pose) and, when the mesh has
// UVs, TEXCOORD_0 (v flipped to glTF's top-left origin). glTF attributes are
// per vertex, so a vertex whose triangle corners use different UVs or
// normals is split into copies; the copies follow the mesh's own vertices,
// which keep their indices, so a file without such seams has exactly the
// mesh's vertex order. Groups are not written. Coordinates are written as
// they are (glTF readers take them as metres, +Y up), as float32. Frame i
// is keyed at time i/FPS seconds. See ExportMode for how the animation is
// stored.
func SaveGLTF(path string, obj *Object, opts ExportOptions) error {
	var asBinary bool
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".glb":
		asBinary = true
	case ".gltf":
	default:
		return fmt.Errorf("%s: extension %q is neither .glb nor .gltf", path, ext)
	}
	doc, err := buildGLTF(obj, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error { return encodeGLTF(w, doc, asBinary) })
}

// encodeGLTF writes doc as .glb (asBinary) or as .gltf with its buffer
// embedded.
func encodeGLTF(w io.Writer, doc *gltf.Document, asBinary bool) error {
	enc := gltf.NewEncoder(w)
	enc.AsBinary = asBinary
	return enc.Encode(doc)
}

// buildGLTF converts obj into a glTF document with a single buffer.
func buildGLTF(obj *Object, opts ExportOptions) (*gltf.Document, error) {
	if obj == nil || obj.Mesh == nil {
		return nil, errors.New("no mesh to export")
	}
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	m := obj.Mesh
	if len(m.Triangles) == 0 {
		return nil, fmt.Errorf("object %q: no triangles to export", obj.Name)
	}
	mode := opts.Mode
	switch {
	case mode == ExportAuto && obj.Rig != nil && obj.Skin != nil:
		mode = ExportSkin
	case mode == ExportAuto:
		mode = ExportMorph
	case mode != ExportMorph && mode != ExportSkin:
		return nil, fmt.Errorf("unknown export mode %d", mode)
	}
	doc := &gltf.Document{
		Asset:  gltf.Asset{Generator: "Gallop", Version: "2.0"},
		Scene:  gltf.Index(0),
		Scenes: []*gltf.Scene{{Name: obj.Name}},
	}
	verts := splitVertices(m)
	pos := make([][3]float32, len(verts.src))
	for i, v := range verts.src {
		pos[i] = vec3f32(m.Positions[v])
	}
	prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{
		gltf.POSITION: modeler.WritePosition(doc, pos),
		gltf.NORMAL:   modeler.WriteNormal(doc, verts.normals),
	}}
	if verts.uvs != nil {
		prim.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, verts.uvs)
	}
	if len(verts.src) <= math.MaxUint16 { // 65535 is the primitive restart value
		idx := make([]uint16, len(verts.indices))
		for i, v := range verts.indices {
			idx[i] = uint16(v)
		}
		prim.Indices = gltf.Index(modeler.WriteIndices(doc, idx))
	} else {
		prim.Indices = gltf.Index(modeler.WriteIndices(doc, verts.indices))
	}
	name := m.Name
	if name == "" {
		name = obj.Name
	}
	doc.Meshes = []*gltf.Mesh{{Name: name, Primitives: []*gltf.Primitive{prim}}}
	var err error
	if mode == ExportSkin {
		err = addSkin(doc, obj, verts.src)
	} else {
		err = addMorphAnimation(doc, obj, verts.src, pos)
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// gltfVertices is a mesh's vertex list as written: glTF vertex i is mesh
// vertex src[i] with normals[i] and uvs[i] (nil without UVs), and indices
// lists three glTF vertices per triangle.
type gltfVertices struct {
	src     []int
	indices []uint32
	normals [][3]float32
	uvs     [][2]float32
}

// splitVertices makes glTF vertices for m: mesh vertex v is glTF vertex v
// with the UV and normal of the first corner that uses it, and each other
// (vertex, UV, normal) combination the corners use is a copy appended
// after the mesh's vertices.
func splitVertices(m *Mesh) *gltfVertices {
	nv := len(m.Positions)
	hasUV, hasN := len(m.UVTriangles) > 0, len(m.NormalTriangles) > 0
	out := &gltfVertices{src: make([]int, nv), indices: make([]uint32, 0, 3*len(m.Triangles))}
	for v := range out.src {
		out.src[v] = v
	}
	// key[i] is the (UV, normal) index pair of glTF vertex i; -1 for none.
	key := make([][2]int, nv)
	for v := range key {
		key[v] = [2]int{-1, -1}
	}
	type corner struct{ v, uv, n int }
	copies := map[corner]int{}
	for f, t := range m.Triangles {
		for c, v := range t {
			k := [2]int{-1, -1}
			if hasUV {
				k[0] = m.UVTriangles[f][c]
			}
			if hasN {
				k[1] = m.NormalTriangles[f][c]
			}
			i := v
			switch {
			case key[v] == [2]int{-1, -1}:
				key[v] = k
			case key[v] != k:
				var ok bool
				if i, ok = copies[corner{v, k[0], k[1]}]; !ok {
					i = len(out.src)
					out.src = append(out.src, v)
					key = append(key, k)
					copies[corner{v, k[0], k[1]}] = i
				}
			}
			out.indices = append(out.indices, uint32(i))
		}
	}
	var computed []Vec3
	if !hasN {
		computed = VertexNormals(nil, m.Positions, m.Triangles)
	}
	out.normals = make([][3]float32, len(out.src))
	for i, v := range out.src {
		n := Vec3{0, 1, 0}
		switch {
		case !hasN:
			n = computed[v]
		case key[i][1] >= 0:
			if l := m.Normals[key[i][1]].Len(); l > 0 && !math.IsInf(l, 0) {
				n = m.Normals[key[i][1]].Mul(1 / l)
			}
		}
		out.normals[i] = vec3f32(n)
	}
	if hasUV {
		out.uvs = make([][2]float32, len(out.src))
		for i := range out.src {
			if k := key[i][0]; k >= 0 {
				out.uvs[i] = [2]float32{float32(m.UVs[k][0]), float32(1 - m.UVs[k][1])}
			}
		}
	}
	return out
}

func vec3f32(v Vec3) [3]float32 {
	return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
}

// addNode appends a node and returns its index.
func addNode(doc *gltf.Document, n *gltf.Node) int {
	doc.Nodes = append(doc.Nodes, n)
	return len(doc.Nodes) - 1
}

// writeTimes writes the key times i/fps of n frames, with the min and max
// that animation inputs must have. The times must be finite and increasing
// in float32.
func writeTimes(doc *gltf.Document, n int, fps float64) (int, error) {
	times := make([]float32, n)
	for i := range times {
		times[i] = float32(float64(i) / fps)
		if math.IsInf(float64(times[i]), 0) || math.IsNaN(float64(times[i])) || i > 0 && !(times[i] > times[i-1]) {
			return 0, fmt.Errorf("%d frames at %v fps cannot be keyed with float32 times", n, fps)
		}
	}
	a := modeler.WriteAccessor(doc, gltf.TargetNone, times)
	doc.Accessors[a].Min = []float64{float64(times[0])}
	doc.Accessors[a].Max = []float64{float64(times[n-1])}
	return a, nil
}

// addMorphAnimation adds the mesh node, and for an animated object one
// morph target per frame and the weights animation that plays them.
// rest32 are the positions as written, so the deltas are taken from them.
func addMorphAnimation(doc *gltf.Document, obj *Object, src []int, rest32 [][3]float32) error {
	node := addNode(doc, &gltf.Node{Name: obj.Name, Mesh: gltf.Index(0)})
	doc.Scenes[0].Nodes = []int{node}
	clip := obj.Clip
	if clip == nil && obj.Rig != nil && obj.Skin != nil {
		var err error
		if clip, err = obj.Rig.Bake(obj.Mesh.Positions, obj.Skin); err != nil {
			return err
		}
	}
	if clip == nil || len(clip.Frames) == 0 {
		return nil
	}
	prim := doc.Meshes[0].Primitives[0]
	names := make([]string, len(clip.Frames))
	delta := make([][3]float32, len(src))
	for f, frame := range clip.Frames {
		for i, v := range src {
			p, r := frame[v], rest32[i]
			delta[i] = [3]float32{
				float32(p[0] - float64(r[0])),
				float32(p[1] - float64(r[1])),
				float32(p[2] - float64(r[2])),
			}
		}
		prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, delta)})
		names[f] = fmt.Sprintf("frame %d", f)
	}
	doc.Meshes[0].Extras = map[string]any{"targetNames": names}
	nf := len(clip.Frames)
	times, err := writeTimes(doc, nf, clip.FPS)
	if err != nil {
		return err
	}
	weights := make([]float32, nf*nf)
	for f := 0; f < nf; f++ {
		weights[f*nf+f] = 1
	}
	doc.Animations = []*gltf.Animation{{
		Name:   clip.Name,
		Extras: map[string]any{gltfFPSExtra: clip.FPS},
		Samplers: []*gltf.AnimationSampler{{
			Input:  times,
			Output: modeler.WriteAccessor(doc, gltf.TargetNone, weights),
		}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: gltf.TRSWeights}}},
	}}
	return nil
}

// addSkin adds the joint nodes, the skinned mesh node (a scene root, so
// that the mesh is not moved by a joint), the skin, the vertex weights and
// the joint animation.
func addSkin(doc *gltf.Document, obj *Object, src []int) error {
	rig := obj.Rig
	if rig == nil || len(rig.Joints) == 0 {
		return fmt.Errorf("object %q: no rig to export as a skin", obj.Name)
	}
	nj := len(rig.Joints)
	if nj > math.MaxUint16+1 {
		return fmt.Errorf("object %q: %d joints; JOINTS_n can index at most %d", obj.Name, nj, math.MaxUint16+1)
	}
	var roots []int
	for j, jt := range rig.Joints {
		r := jt.Rest
		addNode(doc, &gltf.Node{
			Name:        jt.Name,
			Translation: r.Translation,
			Rotation:    xyzw(r.Rotation.Normalize()),
			Scale:       r.Scale,
		})
		if jt.Parent >= 0 {
			doc.Nodes[jt.Parent].Children = append(doc.Nodes[jt.Parent].Children, j)
		} else {
			roots = append(roots, j)
		}
	}
	if len(roots) > 1 { // the validator wants the joints to have a common root
		roots = []int{addNode(doc, &gltf.Node{Name: "Armature", Children: roots})}
	}
	mesh := addNode(doc, &gltf.Node{Name: obj.Name, Mesh: gltf.Index(0), Skin: gltf.Index(0)})
	doc.Scenes[0].Nodes = append(roots, mesh)

	ibm := make([][4][4]float32, nj)
	for j, jt := range rig.Joints {
		for c := 0; c < 4; c++ {
			for r := 0; r < 3; r++ {
				ibm[j][r][c] = float32(jt.InverseBind[c*4+r])
			}
		}
		ibm[j][3] = [4]float32{0, 0, 0, 1}
	}
	joints := make([]int, nj)
	for j := range joints {
		joints[j] = j
	}
	doc.Skins = []*gltf.Skin{{Joints: joints, InverseBindMatrices: gltf.Index(modeler.WriteAccessor(doc, gltf.TargetNone, ibm))}}

	writeWeights(doc, rig, src)
	if obj.Skin != nil && len(obj.Skin.Frames) > 0 {
		return addJointAnimation(doc, rig, obj.Skin)
	}
	return nil
}

// xyzw converts a quaternion to glTF's (x, y, z, w) order.
func xyzw(q mgl64.Quat) [4]float64 {
	return [4]float64{q.V[0], q.V[1], q.V[2], q.W}
}

// writeWeights adds the JOINTS_n / WEIGHTS_n attributes: each vertex's
// influences sorted by decreasing weight, padded with zero weights on joint
// 0 to whole sets of four, the largest weight adjusted so that the float32
// weights sum to 1 as closely as float32 allows.
func writeWeights(doc *gltf.Document, rig *Rig, src []int) {
	sets := max(1, (rig.MaxInfluences()+3)/4)
	joints := make([][]uint16, sets*4)
	weights := make([][][4]float32, sets)
	for s := range weights {
		weights[s] = make([][4]float32, len(src))
	}
	for c := range joints {
		joints[c] = make([]uint16, len(src))
	}
	var infl []Influence
	for i, v := range src {
		infl = append(infl[:0], rig.Weights[v]...)
		slices.SortStableFunc(infl, func(a, b Influence) int {
			switch {
			case a.Weight > b.Weight:
				return -1
			case a.Weight < b.Weight:
				return 1
			}
			return 0
		})
		rest := 0.0
		for k := len(infl) - 1; k >= 1; k-- {
			w := float32(infl[k].Weight)
			if w == 0 {
				continue // the validator wants zero weights on joint 0
			}
			rest += float64(w)
			weights[k/4][i][k%4] = w
			joints[k][i] = uint16(infl[k].Joint)
		}
		weights[0][i][0] = float32(1 - rest)
		joints[0][i] = uint16(infl[0].Joint)
	}
	prim := doc.Meshes[0].Primitives[0]
	for s := 0; s < sets; s++ {
		var j any
		if len(rig.Joints) <= 256 {
			js := make([][4]uint8, len(src))
			for i := range js {
				for c := 0; c < 4; c++ {
					js[i][c] = uint8(joints[4*s+c][i])
				}
			}
			j = js
		} else {
			js := make([][4]uint16, len(src))
			for i := range js {
				for c := 0; c < 4; c++ {
					js[i][c] = joints[4*s+c][i]
				}
			}
			j = js
		}
		prim.Attributes[fmt.Sprintf("JOINTS_%d", s)] = modeler.WriteJoints(doc, j)
		prim.Attributes[fmt.Sprintf("WEIGHTS_%d", s)] = modeler.WriteWeights(doc, weights[s])
	}
}

// addJointAnimation adds one animation with a channel per joint property
// that differs from the joint's rest value in some frame.
func addJointAnimation(doc *gltf.Document, rig *Rig, anim *SkinAnimation) error {
	nf := len(anim.Frames)
	a := &gltf.Animation{Name: anim.Name}
	times := -1
	channel := func(j int, path gltf.TRSProperty, data any) error {
		if times < 0 {
			var err error
			if times, err = writeTimes(doc, nf, anim.FPS); err != nil {
				return err
			}
		}
		a.Samplers = append(a.Samplers, &gltf.AnimationSampler{Input: times, Output: modeler.WriteAccessor(doc, gltf.TargetNone, data)})
		a.Channels = append(a.Channels, &gltf.AnimationChannel{
			Sampler: len(a.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(j), Path: path},
		})
		return nil
	}
	for j, jt := range rig.Joints {
		t := make([][3]float32, nf)
		r := make([][4]float32, nf)
		s := make([][3]float32, nf)
		var moveT, moveR, moveS bool
		restT, restS := vec3f32(jt.Rest.Translation), vec3f32(jt.Rest.Scale)
		restQ := jt.Rest.Rotation.Normalize()
		restR, restNegR := quatf32(restQ), quatf32(restQ.Scale(-1))
		var prev mgl64.Quat
		for f, frame := range anim.Frames {
			tr := frame[j]
			t[f], s[f] = vec3f32(tr.Translation), vec3f32(tr.Scale)
			q := tr.Rotation.Normalize()
			if f > 0 && q.Dot(prev) < 0 {
				q = q.Scale(-1) // keep consecutive keys on the same hemisphere
			}
			prev = q
			r[f] = quatf32(q)
			moveT = moveT || t[f] != restT
			moveR = moveR || r[f] != restR && r[f] != restNegR
			moveS = moveS || s[f] != restS
		}
		for _, c := range []struct {
			moves bool
			path  gltf.TRSProperty
			data  any
		}{{moveT, gltf.TRSTranslation, t}, {moveR, gltf.TRSRotation, r}, {moveS, gltf.TRSScale, s}} {
			if !c.moves {
				continue
			}
			if err := channel(j, c.path, c.data); err != nil {
				return err
			}
		}
	}
	if len(a.Channels) > 0 {
		a.Extras = map[string]any{gltfFPSExtra: anim.FPS}
		doc.Animations = []*gltf.Animation{a}
	}
	return nil
}

func quatf32(q mgl64.Quat) [4]float32 {
	return [4]float32{float32(q.V[0]), float32(q.V[1]), float32(q.V[2]), float32(q.W)}
}
