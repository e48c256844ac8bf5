package assets

import (
	"cmp"
	"errors"
	"fmt"
	"gallop/internal/atomicfile"
	"io"
	"maps"
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

	// CorrectionError is how far, as a fraction of the bounding-box
	// diagonal, a skinned export's corrective shapes may miss the clip
	// (see addCorrections); 0 means DefaultCorrectionError. Fewer shapes
	// make a smaller file.
	CorrectionError float64
	// Influences is the most joints a skinned export gives a vertex: 4,
	// what every engine takes (0 means 4), or 8. A vertex with more keeps
	// its largest, renormalised; what that changes in the clip is carried
	// by the corrective shapes, like any other difference.
	Influences int
	// Report, if not nil, receives what the export wrote.
	Report *ExportReport
}

// ExportReport is what SaveGLTF wrote, for the artist and the tests.
type ExportReport struct {
	// CorrectiveShapes is how many morph targets carry what the skin alone
	// does not play (secondary motion), 0 for none; CorrectionMiss bounds
	// how far, in model units, they miss the clip.
	CorrectiveShapes int
	CorrectionMiss   float64
	// ActiveTargets is the most morph targets weighed at once, at a key
	// or between two.
	ActiveTargets int
	// TrimmedVertices is how many vertices lost influences to Influences.
	TrimmedVertices int
	// RootJoints is the number of joints without a parent joint.
	RootJoints int
	// Warnings name the limits of players that the file exceeds.
	Warnings []string
}

// Summary says in words what a skinned export carries besides the skin,
// "" when nothing: "the motion the skin does not make as 12 corrective
// shapes (12 blended at once)", and the vertices cut to fewer influences.
func (r *ExportReport) Summary() string {
	var parts []string
	if r.CorrectiveShapes > 0 {
		parts = append(parts, fmt.Sprintf("the motion the skin does not make as %d corrective shapes (%d blended at once)", r.CorrectiveShapes, r.ActiveTargets))
	}
	if r.TrimmedVertices > 0 {
		parts = append(parts, fmt.Sprintf("%d vertices cut to fewer bones", r.TrimmedVertices))
	}
	return strings.Join(parts, "; ")
}

// SaveGLTF writes obj to path as glTF 2.0: binary .glb, or .gltf JSON with
// the buffer embedded as a base64 data URI, chosen by the extension. The
// file is written through atomicfile.Write, so an error leaves any previous
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
	return saveGLTFDocument(path, func() (*gltf.Document, error) { return buildGLTF(obj, opts) })
}

// saveGLTFDocument writes the document that build returns to path, as .glb
// or as .gltf by the extension (checked before build runs), through
// atomicfile.Write. Errors are prefixed with path.
func saveGLTFDocument(path string, build func() (*gltf.Document, error)) error {
	var asBinary bool
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".glb":
		asBinary = true
	case ".gltf":
	default:
		return fmt.Errorf("%s: extension %q is neither .glb nor .gltf", path, ext)
	}
	doc, err := build()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return encodeGLTF(w, doc, asBinary) })
}

// GLTFSize returns the bytes SaveGLTF would write for obj, as .glb
// (binary) or as .gltf, without writing a file: the document is encoded
// to a counter.
func GLTFSize(obj *Object, opts ExportOptions, binary bool) (int64, error) {
	doc, err := buildGLTF(obj, opts)
	if err != nil {
		return 0, err
	}
	var c countingWriter
	if err := encodeGLTF(&c, doc, binary); err != nil {
		return 0, err
	}
	return int64(c), nil
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
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
	doc := newGLTFDocument(obj.Name)
	geom := writeGeometry(doc, m)
	name := m.Name
	if name == "" {
		name = obj.Name
	}
	doc.Meshes = []*gltf.Mesh{{Name: name, Primitives: []*gltf.Primitive{geom.primitive(nil)}}}
	var err error
	if mode == ExportSkin {
		err = addSkin(doc, obj, geom.verts.src, geom.pos, opts)
	} else {
		err = addMorphAnimation(doc, obj, geom.verts.src, geom.pos)
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// newGLTFDocument returns an empty glTF 2.0 document whose one scene,
// the default, is named scene.
func newGLTFDocument(scene string) *gltf.Document {
	return &gltf.Document{
		Asset:  gltf.Asset{Generator: "Gallop", Version: "2.0"},
		Scene:  gltf.Index(0),
		Scenes: []*gltf.Scene{{Name: scene}},
	}
}

// gltfGeometry is a mesh written into a document's buffer: its glTF vertex
// list, the positions as written (float32), and the accessors of one
// TRIANGLES primitive. Several primitives, each with its own material, may
// share them.
type gltfGeometry struct {
	verts      *gltfVertices
	pos        [][3]float32
	attributes gltf.PrimitiveAttributes // POSITION (with min and max), NORMAL, TEXCOORD_0 when the mesh has UVs
	indices    int
}

// writeGeometry writes m's vertices (split by splitVertices) and triangles:
// POSITION, NORMAL, TEXCOORD_0 when the mesh has UVs, and unsigned short
// indices when the vertices allow it, else unsigned int.
func writeGeometry(doc *gltf.Document, m *Mesh) *gltfGeometry {
	verts := splitVertices(m)
	g := &gltfGeometry{verts: verts, pos: make([][3]float32, len(verts.src))}
	for i, v := range verts.src {
		g.pos[i] = vec3f32(m.Positions[v])
	}
	g.attributes = gltf.PrimitiveAttributes{
		gltf.POSITION: modeler.WritePosition(doc, g.pos),
		gltf.NORMAL:   modeler.WriteNormal(doc, verts.normals),
	}
	if verts.uvs != nil {
		g.attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, verts.uvs)
	}
	if len(verts.src) <= math.MaxUint16 { // 65535 is the primitive restart value
		idx := make([]uint16, len(verts.indices))
		for i, v := range verts.indices {
			idx[i] = uint16(v)
		}
		g.indices = modeler.WriteIndices(doc, idx)
	} else {
		g.indices = modeler.WriteIndices(doc, verts.indices)
	}
	return g
}

// primitive returns a new TRIANGLES primitive over the geometry's
// accessors with the given material (nil for none). Its attribute map is
// its own, so attributes may be added to it.
func (g *gltfGeometry) primitive(material *int) *gltf.Primitive {
	return &gltf.Primitive{Attributes: maps.Clone(g.attributes), Indices: gltf.Index(g.indices), Material: material}
}

// gltfMaterials adds materials to a document, one per distinct colour.
type gltfMaterials struct {
	doc     *gltf.Document
	byColor map[[3]float32]int
}

// index returns the material of base colour rgb (linear RGB, as glTF's
// baseColorFactor; opaque, not metallic, roughness 0.5), adding it to the
// document the first time. It is named after the colour in hexadecimal.
func (m *gltfMaterials) index(rgb [3]float32) int {
	if i, ok := m.byColor[rgb]; ok {
		return i
	}
	if m.byColor == nil {
		m.byColor = map[[3]float32]int{}
	}
	metallic, roughness := 0.0, 0.5
	m.doc.Materials = append(m.doc.Materials, &gltf.Material{
		Name: fmt.Sprintf("#%02x%02x%02x", byte(math.Round(float64(rgb[0])*255)), byte(math.Round(float64(rgb[1])*255)), byte(math.Round(float64(rgb[2])*255))),
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &[4]float64{float64(rgb[0]), float64(rgb[1]), float64(rgb[2]), 1},
			MetallicFactor:  &metallic,
			RoughnessFactor: &roughness,
		},
	})
	i := len(m.doc.Materials) - 1
	m.byColor[rgb] = i
	return i
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

// MaxMorphFrames is the most frames a morph-target export holds: one
// target per frame, and a weights animation of frames² values (8,192
// frames: 268 MB of weights), so that a long clip fails with a message
// instead of allocating without bound; a skinned export has no such limit.
const MaxMorphFrames = 8192

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
	if len(clip.Frames) > MaxMorphFrames {
		return fmt.Errorf("%s: %d frames as morph targets: at most %d (the weights grow as the square of the frames); export a skin or fewer frames", obj.Name, len(clip.Frames), MaxMorphFrames)
	}
	deltas := make([][][3]float32, len(clip.Frames))
	for f, frame := range clip.Frames {
		delta := make([][3]float32, len(src))
		for i, v := range src {
			p, r := frame[v], rest32[i]
			delta[i] = [3]float32{
				float32(p[0] - float64(r[0])),
				float32(p[1] - float64(r[1])),
				float32(p[2] - float64(r[2])),
			}
		}
		deltas[f] = delta
	}
	addMorphTargets(doc, deltas, "frame %d")
	nf := len(clip.Frames)
	anim := newGLTFChannels(doc, clip.Name, nf, clip.FPS)
	if err := anim.add(node, gltf.TRSWeights, oneHotWeights(nf)); err != nil {
		return err
	}
	anim.finish()
	return nil
}

// addSkin adds the joint nodes, the skinned mesh node (a scene root, so
// that the mesh is not moved by a joint), the skin, the vertex weights
// (at most opts.Influences a vertex), the joint animation and, when the
// clip is more than its plain skinning, the corrective morph targets that
// carry the rest (see addCorrections). A rig of several root joints (free
// bones) gets a joint "root" above them, at the origin and never moving,
// so that the file has the one root skeleton engines expect. rest32 are
// the positions as written.
func addSkin(doc *gltf.Document, obj *Object, src []int, rest32 [][3]float32, opts ExportOptions) error {
	rig := obj.Rig
	if rig == nil || len(rig.Joints) == 0 {
		return fmt.Errorf("object %q: no rig to export as a skin", obj.Name)
	}
	keep := opts.Influences
	switch keep {
	case 0:
		keep = 4
	case 4, 8:
	default:
		return fmt.Errorf("object %q: %d influences per vertex asked for; a skinned export writes 4 or 8", obj.Name, keep)
	}
	rig, trimmed := trimInfluences(rig, keep)
	report := opts.Report
	if report == nil {
		report = &ExportReport{}
	}
	report.TrimmedVertices = trimmed
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
	skinJoints := make([]int, nj)
	for j := range skinJoints {
		skinJoints[j] = j
	}
	ibm := make([][4][4]float32, nj, nj+1)
	for j, jt := range rig.Joints {
		for c := 0; c < 4; c++ {
			for r := 0; r < 3; r++ {
				ibm[j][r][c] = float32(jt.InverseBind[c*4+r])
			}
		}
		ibm[j][3] = [4]float32{0, 0, 0, 1}
	}
	if len(roots) > 1 {
		root := addNode(doc, &gltf.Node{Name: "root", Children: roots})
		roots = []int{root}
		skinJoints = append(skinJoints, root)
		ibm = append(ibm, [4][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}})
	}
	report.RootJoints = len(roots)
	mesh := addNode(doc, &gltf.Node{Name: obj.Name, Mesh: gltf.Index(0), Skin: gltf.Index(0)})
	doc.Scenes[0].Nodes = append(roots, mesh)

	doc.Skins = []*gltf.Skin{{Joints: skinJoints, Skeleton: gltf.Index(roots[0]), InverseBindMatrices: gltf.Index(modeler.WriteAccessor(doc, gltf.TargetNone, ibm))}}

	writeWeights(doc, rig, src)
	if obj.Skin == nil || len(obj.Skin.Frames) == 0 {
		return nil
	}
	a := newGLTFChannels(doc, obj.Skin.Name, len(obj.Skin.Frames), obj.Skin.FPS)
	if err := addJointChannels(a, rig, obj.Skin); err != nil {
		return err
	}
	if err := addCorrections(a, obj, rig, mesh, src, rest32, opts.CorrectionError, report); err != nil {
		return err
	}
	a.finish()
	if keep > 4 && rig.MaxInfluences() > 4 {
		report.Warnings = append(report.Warnings, fmt.Sprintf("%s: some vertices are moved by more than 4 bones; three.js and many engines skin with each vertex's 4 largest weights only and will play them differently: export with 4 influences for those",
			obj.Name))
	}
	if trimmed > 0 && (obj.Clip == nil || len(obj.Clip.Frames) != len(obj.Skin.Frames)) {
		report.Warnings = append(report.Warnings, fmt.Sprintf("%s: %d vertices are moved by more than %d bones; the file keeps each one's %d largest weights, so it plays a little differently: export with 8 influences to keep them",
			obj.Name, trimmed, keep, keep))
	}
	if report.ActiveTargets > MorphActiveLimit {
		report.Warnings = append(report.Warnings, fmt.Sprintf("%s: %d corrective shapes are blended at once; some players blend at most %d (older three.js, many engines' GPU skinning) and would play the secondary motion wrongly: allow a larger correction error for fewer shapes",
			obj.Name, report.ActiveTargets, MorphActiveLimit))
	}
	return nil
}

// trimInfluences returns rig with each vertex's influences cut to its
// keep largest, renormalised to sum to 1, and how many vertices lost
// some; rig itself when none has more.
func trimInfluences(rig *Rig, keep int) (*Rig, int) {
	if rig.MaxInfluences() <= keep {
		return rig, 0
	}
	out := &Rig{Joints: rig.Joints, Weights: make([][]Influence, len(rig.Weights))}
	n := 0
	for v, l := range rig.Weights {
		if len(l) <= keep {
			out.Weights[v] = l
			continue
		}
		n++
		l = slices.Clone(l)
		slices.SortStableFunc(l, func(a, b Influence) int { return cmp.Compare(b.Weight, a.Weight) })
		l = l[:keep]
		sum := 0.0
		for _, in := range l {
			sum += in.Weight
		}
		for q := range l {
			l[q].Weight /= sum
		}
		out.Weights[v] = l
	}
	return out, n
}

// CorrectionTolerance is how far, as a fraction of the mesh's bounding-box
// diagonal, an object's clip may differ from the plain skinning of its rig
// and joint animation before a skinned export carries the difference as
// corrective morph targets: well above float32 rounding, far below any
// secondary motion an artist would see.
const CorrectionTolerance = 1e-5

// addCorrections makes a skinned export play the object's clip, not just
// its skinning. When the clip has the joint animation's frames and differs
// from linear blend skinning of the rest positions (rest32, as written) by
// the rig (as written: its influences trimmed) by more than
// CorrectionTolerance of the diagonal somewhere (baked dynamics, a
// captured clip the rig only approximates), each frame's difference r
// becomes a correction in rest space, d = A⁻¹ r, where A = Σ_j w_j S_j is
// the vertex's blended skinning matrix (its 3×3 part): glTF morphs before
// it skins, and LBS(p + d) = LBS(p) + A d = the clip's position. The
// corrections are then compressed (compressCorrections) into the fewest
// shapes, written as morph targets, that miss no vertex of any frame by
// more than maxError of the diagonal (DefaultCorrectionError when 0),
// with a weights animation in the same animation as the joints, so every
// reader that plays the skin plays the secondary motion with it. A vertex
// whose A is singular (its bones collapse it; see singular) keeps plain
// skinning there. A clip that skinning plays to within maxError
// everywhere gets no shapes (the report gives its miss). A clip of more
// than MaxMorphFrames frames is refused at its first frame that differs,
// before any more are computed.
func addCorrections(a *gltfChannels, obj *Object, rig *Rig, node int, src []int, rest32 [][3]float32, maxError float64, report *ExportReport) error {
	clip, skin := obj.Clip, obj.Skin
	if clip == nil || len(clip.Frames) != len(skin.Frames) {
		return nil
	}
	rest := make([]Vec3, len(obj.Mesh.Positions))
	for i, v := range src {
		rest[v] = Vec3{float64(rest32[i][0]), float64(rest32[i][1]), float64(rest32[i][2])}
	}
	lo, hi := Bounds(rest)
	diag := hi.Sub(lo).Len()
	tol := CorrectionTolerance * diag
	if maxError <= 0 {
		maxError = DefaultCorrectionError
	}
	nf := len(clip.Frames)
	deltas := make([][][3]float64, nf)
	scale := make([]float64, len(src))
	var skinM []mgl64.Mat4
	differs := false
	for f, local := range skin.Frames {
		skinM = rig.SkinningMatrices(skinM, local)
		d := make([][3]float64, len(src))
		for i, v := range src {
			var blend mgl64.Mat4
			for _, in := range rig.Weights[v] {
				blend = blend.Add(skinM[in.Joint].Mul(in.Weight))
			}
			A := blend.Mat3()
			scale[i] = max(scale[i], stretch(A))
			r := mgl64.Vec3(clip.Frames[f][v]).Sub(blend.Mul4x1(rest[v].Vec4(1)).Vec3())
			if r.Len() <= tol {
				continue
			}
			if !differs && nf > MaxMorphFrames {
				return fmt.Errorf("%s: the clip differs from its skinning (secondary motion) in frame %d; a skinned export carries that as morph targets, from at most %d frames, and the clip has %d: export morph targets, or fewer frames", obj.Name, f+1, MaxMorphFrames, nf)
			}
			differs = true
			if singular(A) {
				continue
			}
			d[i] = A.Inv().Mul3x1(r)
		}
		deltas[f] = d
	}
	if !differs {
		return nil
	}
	b := compressCorrections(deltas, scale, maxError*diag)
	report.CorrectionMiss = b.miss
	if len(b.shapes) == 0 { // the clip is its skinning to within maxError
		return nil
	}
	addMorphTargets(a.doc, b.shapes, "corrective %d")
	report.CorrectiveShapes = len(b.shapes)
	report.ActiveTargets = activeTargets(b.weights, len(b.shapes))
	return a.add(node, gltf.TRSWeights, b.weights)
}

// frobenius returns ‖A‖_F.
func frobenius(A mgl64.Mat3) float64 {
	s := 0.0
	for _, x := range A {
		s += x * x
	}
	return math.Sqrt(s)
}

// stretch returns ‖A‖₂, the most A lengthens a vector, |A·x| ≤ ‖A‖₂|x|:
// the square root of the largest eigenvalue of AᵀA, in closed form
// (the trigonometric solution of its characteristic cubic). A blend of
// rotations stretches by at most 1, where ‖A‖_F would say √3.
func stretch(A mgl64.Mat3) float64 {
	m := A.Transpose().Mul3(A)
	p1 := m[3]*m[3] + m[6]*m[6] + m[7]*m[7]
	if p1 == 0 {
		return math.Sqrt(max(m[0], m[4], m[8]))
	}
	q := (m[0] + m[4] + m[8]) / 3
	p2 := (m[0]-q)*(m[0]-q) + (m[4]-q)*(m[4]-q) + (m[8]-q)*(m[8]-q) + 2*p1
	p := math.Sqrt(p2 / 6)
	b := m.Sub(mgl64.Ident3().Mul(q)).Mul(1 / p)
	r := max(-1, min(1, b.Det()/2))
	return math.Sqrt(max(0, q+2*p*math.Cos(math.Acos(r)/3)))
}

// singular reports whether A is singular relative to its scale: |det A| ≤
// 10⁻¹² (‖A‖_F/√3)³, the determinant against that of the uniform scaling
// of the same Frobenius norm, so that a rig in millimetres or in
// kilometres is judged alike (an absolute bound on det A, which scales as
// the cube of the units, called a rig 10⁻⁵ of a unit across singular).
func singular(A mgl64.Mat3) bool {
	s := frobenius(A) / math.Sqrt(3)
	return math.Abs(A.Det()) <= 1e-12*s*s*s
}

// addMorphTargets adds one POSITION morph target per frame (deltas[f] per
// addMorphTargets adds one POSITION morph target per offset set
// (deltas[k] per glTF vertex) to the document's mesh, target k named by
// the format name ("frame %d").
func addMorphTargets(doc *gltf.Document, deltas [][][3]float32, name string) {
	prim := doc.Meshes[0].Primitives[0]
	names := make([]string, len(deltas))
	for k, d := range deltas {
		prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{gltf.POSITION: writeMorphTarget(doc, d)})
		names[k] = fmt.Sprintf(name, k)
	}
	doc.Meshes[0].Extras = map[string]any{"targetNames": names}
}

// oneHotWeights returns the morph weights of n frames, frame f showing
// target f alone.
func oneHotWeights(n int) []float32 {
	w := make([]float32, n*n)
	for f := 0; f < n; f++ {
		w[f*n+f] = 1
	}
	return w
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

// addJointChannels adds to a a channel per joint property that differs
// from the joint's rest value in some frame.
func addJointChannels(a *gltfChannels, rig *Rig, anim *SkinAnimation) error {
	nf := len(anim.Frames)
	for j, jt := range rig.Joints {
		t := make([][3]float32, nf)
		s := make([][3]float32, nf)
		r := quatKeys(nf, func(f int) mgl64.Quat { return anim.Frames[f][j].Rotation })
		var moveT, moveR, moveS bool
		restT, restS := vec3f32(jt.Rest.Translation), vec3f32(jt.Rest.Scale)
		restQ := jt.Rest.Rotation.Normalize()
		restR, restNegR := quatf32(restQ), quatf32(restQ.Scale(-1))
		for f, frame := range anim.Frames {
			tr := frame[j]
			t[f], s[f] = vec3f32(tr.Translation), vec3f32(tr.Scale)
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
			if err := a.add(j, c.path, c.data); err != nil {
				return err
			}
		}
	}
	return nil
}

// gltfChannels builds one glTF animation whose channels are all keyed at
// every frame of a clip (frame i at time i/fps) with LINEAR samplers that
// share one input accessor.
type gltfChannels struct {
	doc    *gltf.Document
	anim   *gltf.Animation
	frames int
	fps    float64
	times  int // accessor of the key times; -1 until the first channel
}

// newGLTFChannels starts an animation named name of frames frames at fps.
func newGLTFChannels(doc *gltf.Document, name string, frames int, fps float64) *gltfChannels {
	return &gltfChannels{doc: doc, anim: &gltf.Animation{Name: name}, frames: frames, fps: fps, times: -1}
}

// add writes data (one key per frame, or for weights one set per frame) as
// the output of a new sampler and adds a channel that drives path of node
// with it. The key times are written with the first channel.
func (c *gltfChannels) add(node int, path gltf.TRSProperty, data any) error {
	if c.times < 0 {
		var err error
		if c.times, err = writeTimes(c.doc, c.frames, c.fps); err != nil {
			return err
		}
	}
	a := c.anim
	a.Samplers = append(a.Samplers, &gltf.AnimationSampler{Input: c.times, Output: modeler.WriteAccessor(c.doc, gltf.TargetNone, data)})
	a.Channels = append(a.Channels, &gltf.AnimationChannel{
		Sampler: len(a.Samplers) - 1,
		Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: path},
	})
	return nil
}

// finish adds the animation to the document, with the frame rate recorded
// in its extras ({"fps": N}, read back by parseAnimation), unless it has no
// channel.
func (c *gltfChannels) finish() {
	if len(c.anim.Channels) == 0 {
		return
	}
	c.anim.Extras = map[string]any{gltfFPSExtra: c.fps}
	c.doc.Animations = append(c.doc.Animations, c.anim)
}

// quatKeys returns the rotations at(0), ..., at(n-1) as float32 glTF
// rotation keys (x, y, z, w), each normalised, and negated where needed so
// that consecutive keys lie in the same hemisphere: q and -q are the same
// rotation, and LINEAR interpolation between keys then follows the shorter
// arc in every reader, whether or not it flips signs itself.
func quatKeys(n int, at func(i int) mgl64.Quat) [][4]float32 {
	keys := make([][4]float32, n)
	var prev mgl64.Quat
	for i := range keys {
		q := at(i).Normalize()
		if i > 0 && q.Dot(prev) < 0 {
			q = q.Scale(-1)
		}
		prev = q
		keys[i] = quatf32(q)
	}
	return keys
}

func quatf32(q mgl64.Quat) [4]float32 {
	return [4]float32{float32(q.V[0]), float32(q.V[1]), float32(q.V[2]), float32(q.W)}
}
