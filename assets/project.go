package assets

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"gallop/internal/atomicfile"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
)

// ProjectVersion is the version of the .gallop format this build writes. It
// reads this version and every earlier one (migrate), and refuses a later
// one: an older reader would drop what it does not know and write the file
// back without it. Versions:
//
//  1. The scene, the session's state, the tools' states.
//  2. Objects may be hidden (hidden) and keep the clips they held before
//     (takes); the Ensemble tool's state may hold its motion graph
//     (graph_data). A version 1 file reads as one with none of them.
const ProjectVersion = 2

// Project is the content of a .gallop file: the scene and the state of the
// session, so reopening restores it.
//
// The file is JSON. Objects loaded from files that were not edited since are
// referenced by path relative to the project file (Object.Source); all others
// (and every object, when Embed is set) are embedded, with their numeric
// arrays as base64 of little-endian float64 / int32 values, so positions
// round-trip exactly. The application and each tool keep their own state as
// JSON values under Settings and Tools; this package does not interpret them.
type Project struct {
	Scene     *Scene
	Active    int   // index of the object being edited
	Frame     int   // current frame of the timeline
	Selection []int // selected vertices of the active object

	Settings map[string]json.RawMessage // application state (camera, view style, timeline)
	Tools    map[string]json.RawMessage // per-tool state, by tool name

	// Embed makes SaveProject embed every object even when it has a Source.
	Embed bool
}

type projectFile struct {
	Format    string                     `json:"format"`
	Version   int                        `json:"version"`
	Generator string                     `json:"generator,omitempty"`
	Active    int                        `json:"active"`
	Frame     int                        `json:"frame"`
	Selection []int                      `json:"selection,omitempty"`
	Objects   []objectJSON               `json:"objects"`
	Settings  map[string]json.RawMessage `json:"settings,omitempty"`
	Tools     map[string]json.RawMessage `json:"tools,omitempty"`
}

type objectJSON struct {
	Name   string     `json:"name"`
	Hidden bool       `json:"hidden,omitempty"`
	Source *Source    `json:"source,omitempty"`
	FPS    float64    `json:"fps,omitempty"` // frame-rate override for a referenced clip
	Mesh   *meshJSON  `json:"mesh,omitempty"`
	Clip   *clipJSON  `json:"clip,omitempty"`
	Rig    *rigJSON   `json:"rig,omitempty"`
	Skin   *skinJSON  `json:"skin,omitempty"`
	Takes  []takeJSON `json:"takes,omitempty"`
}

type takeJSON struct {
	Clip *clipJSON `json:"clip"`
	Skin *skinJSON `json:"skin,omitempty"`
}

type meshJSON struct {
	Name            string      `json:"name,omitempty"`
	Positions       string      `json:"positions"`
	Triangles       string      `json:"triangles"`
	UVs             string      `json:"uvs,omitempty"`
	UVTriangles     string      `json:"uv_triangles,omitempty"`
	Normals         string      `json:"normals,omitempty"`
	NormalTriangles string      `json:"normal_triangles,omitempty"`
	Groups          []groupJSON `json:"groups,omitempty"`
}

type groupJSON struct {
	Name      string `json:"name"`
	Triangles string `json:"triangles"`
}

type clipJSON struct {
	Name   string   `json:"name,omitempty"`
	FPS    float64  `json:"fps"`
	Frames []string `json:"frames"`
}

type jointJSON struct {
	Name        string      `json:"name,omitempty"`
	Parent      int         `json:"parent"`
	Rest        [10]float64 `json:"rest"` // translation, rotation (x, y, z, w), scale
	InverseBind [16]float64 `json:"inverse_bind"`
}

type rigJSON struct {
	Joints []jointJSON `json:"joints"`
	// Counts[i] influences of vertex i, then flattened joint indices and weights.
	Counts  string `json:"counts"`
	Joint   string `json:"joint"`
	Weights string `json:"weights"`
}

type skinJSON struct {
	Name   string   `json:"name,omitempty"`
	FPS    float64  `json:"fps"`
	Frames []string `json:"frames"` // per frame, 10 float64 per joint
}

const projectFormat = "gallop-project"

// SaveProject writes p to path atomically: a crash while saving leaves the
// previous file intact.
func SaveProject(path string, p *Project) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return writeProject(w, p, dir) })
}

// writeProject encodes p as a project file whose referenced paths are
// relative to dir.
func writeProject(w io.Writer, p *Project, dir string) error {
	f := projectFile{
		Format: projectFormat, Version: ProjectVersion, Generator: "Gallop",
		Active: p.Active, Frame: p.Frame, Selection: p.Selection,
		Settings: p.Settings, Tools: p.Tools,
	}
	if p.Scene != nil {
		for _, o := range p.Scene.Objects {
			f.Objects = append(f.Objects, encodeObject(o, dir, p.Embed))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&f)
}

// LoadProject reads a .gallop file and the files its objects reference
// (paths relative to the project's folder). progress, if not nil, is called
// as referenced OBJ sequences load.
func LoadProject(ctx context.Context, path string, progress func(done, total int)) (*Project, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	p, err := decodeProject(ctx, data, dir, LoadSource, progress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// migrate brings a project file of an earlier version to this one, or
// refuses one that is not a version this build reads: a later one, written
// by a newer Gallop, is refused rather than read without the fields this
// build does not know (its next save would drop them).
func migrate(f *projectFile) error {
	switch {
	case f.Version > ProjectVersion:
		return fmt.Errorf("project version %d was written by a newer Gallop; this one reads versions 1 to %d and would lose what it does not know: open it with the Gallop that wrote it", f.Version, ProjectVersion)
	case f.Version < 1:
		return fmt.Errorf("project version %d; this Gallop reads versions 1 to %d", f.Version, ProjectVersion)
	}
	// 1 → 2 adds optional fields only (hidden, takes, graph_data): their
	// absence is a version 1 file's meaning.
	f.Version = ProjectVersion
	return nil
}

// decodeProject reads a project file's bytes; sources are relative to dir
// and loaded with load. Everything it allocates for embedded objects is
// proportional to the size of data (base64 text decodes to at most 3/4
// of its length), so a malformed file cannot make it allocate without
// bound; referenced files are read by their own readers, with their own
// limits.
func decodeProject(ctx context.Context, data []byte, dir string, load sourceLoader, progress func(done, total int)) (*Project, error) {
	var f projectFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a Gallop project: %w", err)
	}
	if f.Format != projectFormat {
		return nil, fmt.Errorf("not a Gallop project (format %q)", f.Format)
	}
	if err := migrate(&f); err != nil {
		return nil, err
	}
	p := &Project{Scene: &Scene{}, Active: f.Active, Frame: f.Frame, Selection: f.Selection, Settings: f.Settings, Tools: f.Tools}
	for i, oj := range f.Objects {
		o, err := decodeObject(ctx, &oj, dir, load, progress)
		if err != nil {
			return nil, fmt.Errorf("object %d (%q): %w", i, oj.Name, err)
		}
		p.Scene.Objects = append(p.Scene.Objects, o)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p, nil
}

// Check reports what would make p a project that LoadProject refuses: an
// object that does not validate (Object.Validate: sizes, non-finite
// numbers), the active object or a selected vertex out of range.
func (p *Project) Check() error {
	var objs []*Object
	if p.Scene != nil {
		objs = p.Scene.Objects
	}
	for _, o := range objs {
		if err := o.Validate(); err != nil {
			return err
		}
	}
	if n := len(objs); p.Active < 0 || p.Active >= max(n, 1) {
		return fmt.Errorf("active object %d out of range (%d objects)", p.Active, n)
	}
	if len(objs) > 0 {
		nv := objs[p.Active].Mesh.NumVertices()
		for _, v := range p.Selection {
			if v < 0 || v >= nv {
				return fmt.Errorf("selected vertex %d out of range (%d vertices)", v, nv)
			}
		}
	}
	return nil
}

// encodeObject is an object's entry in a project file: a reference to
// its source files, or (embed, or no source) its parts embedded.
func encodeObject(o *Object, dir string, embed bool) objectJSON {
	oj := objectJSON{Name: o.Name, Hidden: o.Hidden}
	if o.Source != nil && !embed {
		src := *o.Source
		src.Paths = make([]string, len(o.Source.Paths))
		for i, p := range o.Source.Paths {
			src.Paths[i] = relPath(dir, p)
		}
		oj.Source = &src
		if o.Clip != nil {
			oj.FPS = o.Clip.FPS
		}
		return oj
	}
	oj.Mesh = encodeMesh(o.Mesh)
	if o.Clip != nil {
		oj.Clip = encodeClip(o.Clip)
	}
	if o.Rig != nil {
		oj.Rig = encodeRig(o.Rig)
	}
	if o.Skin != nil {
		oj.Skin = encodeSkin(o.Skin)
	}
	for _, tk := range o.Takes {
		tj := takeJSON{Clip: encodeClip(tk.Clip)}
		if tk.Skin != nil {
			tj.Skin = encodeSkin(tk.Skin)
		}
		oj.Takes = append(oj.Takes, tj)
	}
	return oj
}

func encodeMesh(m *Mesh) *meshJSON {
	mj := &meshJSON{
		Name:      m.Name,
		Positions: EncodeVec3s(m.Positions),
		Triangles: encodeTris(m.Triangles),
	}
	if len(m.UVTriangles) > 0 {
		uv := make([]float64, 0, 2*len(m.UVs))
		for _, t := range m.UVs {
			uv = append(uv, t[0], t[1])
		}
		mj.UVs, mj.UVTriangles = EncodeFloat64s(uv), encodeTris(m.UVTriangles)
	}
	if len(m.NormalTriangles) > 0 {
		mj.Normals, mj.NormalTriangles = EncodeVec3s(m.Normals), encodeTris(m.NormalTriangles)
	}
	for _, g := range m.Groups {
		mj.Groups = append(mj.Groups, groupJSON{Name: g.Name, Triangles: encodeInts(g.Triangles)})
	}
	return mj
}

func encodeClip(c *Clip) *clipJSON {
	cj := &clipJSON{Name: c.Name, FPS: c.FPS}
	for _, fr := range c.Frames {
		cj.Frames = append(cj.Frames, EncodeVec3s(fr))
	}
	return cj
}

func encodeRig(r *Rig) *rigJSON {
	rj := &rigJSON{}
	for _, j := range r.Joints {
		rj.Joints = append(rj.Joints, jointJSON{Name: j.Name, Parent: j.Parent, Rest: trsArray(j.Rest), InverseBind: j.InverseBind})
	}
	var counts, joints []int
	var weights []float64
	for _, infl := range r.Weights {
		counts = append(counts, len(infl))
		for _, in := range infl {
			joints = append(joints, in.Joint)
			weights = append(weights, in.Weight)
		}
	}
	rj.Counts, rj.Joint, rj.Weights = encodeInts(counts), encodeInts(joints), EncodeFloat64s(weights)
	return rj
}

func encodeSkin(s *SkinAnimation) *skinJSON {
	sj := &skinJSON{Name: s.Name, FPS: s.FPS}
	for _, fr := range s.Frames {
		v := make([]float64, 0, 10*len(fr))
		for _, t := range fr {
			a := trsArray(t)
			v = append(v, a[:]...)
		}
		sj.Frames = append(sj.Frames, EncodeFloat64s(v))
	}
	return sj
}

// sourceLoader loads the objects of a source an object of a project
// refers to (LoadSource; the fuzz test's refuses every source).
type sourceLoader func(ctx context.Context, src *Source, progress func(done, total int)) ([]*Object, error)

// decodeObject is encodeObject's inverse: the object from its source
// files (read with load) or from its embedded parts.
func decodeObject(ctx context.Context, oj *objectJSON, dir string, load sourceLoader, progress func(done, total int)) (*Object, error) {
	if oj.Source != nil {
		return decodeSource(ctx, oj, dir, load, progress)
	}
	if oj.Mesh == nil {
		return nil, fmt.Errorf("neither a source nor an embedded mesh")
	}
	m, err := decodeMesh(oj.Mesh)
	if err != nil {
		return nil, err
	}
	o := &Object{Name: oj.Name, Mesh: m, Hidden: oj.Hidden}
	if oj.Clip != nil {
		if o.Clip, err = decodeClip(oj.Clip); err != nil {
			return nil, err
		}
	}
	if oj.Rig != nil {
		if o.Rig, err = decodeRig(oj.Rig); err != nil {
			return nil, err
		}
	}
	if oj.Skin != nil {
		if o.Skin, err = decodeSkin(oj.Skin); err != nil {
			return nil, err
		}
	}
	for i, tj := range oj.Takes {
		if tj.Clip == nil {
			return nil, fmt.Errorf("take %d has no clip", i)
		}
		var tk Take
		if tk.Clip, err = decodeClip(tj.Clip); err != nil {
			return nil, fmt.Errorf("take %d: %w", i, err)
		}
		if tj.Skin != nil {
			if tk.Skin, err = decodeSkin(tj.Skin); err != nil {
				return nil, fmt.Errorf("take %d: %w", i, err)
			}
		}
		o.Takes = append(o.Takes, tk)
	}
	return o, nil
}

func decodeSource(ctx context.Context, oj *objectJSON, dir string, load sourceLoader, progress func(done, total int)) (*Object, error) {
	src := *oj.Source
	src.Paths = make([]string, len(oj.Source.Paths))
	for i, p := range oj.Source.Paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		src.Paths[i] = p
	}
	if src.Kind == SourceGLTF && src.Index < 0 {
		return nil, fmt.Errorf("glTF source needs an object index")
	}
	objs, err := load(ctx, &src, progress)
	if err != nil {
		return nil, err
	}
	o := objs[0]
	o.Name, o.Hidden = oj.Name, oj.Hidden
	if oj.FPS > 0 && o.Clip != nil {
		o.Clip.FPS = oj.FPS
	}
	return o, nil
}

func decodeMesh(mj *meshJSON) (*Mesh, error) {
	m := &Mesh{Name: mj.Name}
	var err error
	if m.Positions, err = DecodeVec3s(mj.Positions, "positions"); err != nil {
		return nil, err
	}
	if m.Triangles, err = decodeTris(mj.Triangles, "triangles"); err != nil {
		return nil, err
	}
	if mj.UVTriangles != "" {
		uv, err := DecodeFloat64s(mj.UVs, "uvs")
		if err != nil {
			return nil, err
		}
		if len(uv)%2 != 0 {
			return nil, fmt.Errorf("uvs: %d values, not pairs", len(uv))
		}
		for i := 0; i < len(uv); i += 2 {
			m.UVs = append(m.UVs, Vec2{uv[i], uv[i+1]})
		}
		if m.UVTriangles, err = decodeTris(mj.UVTriangles, "uv_triangles"); err != nil {
			return nil, err
		}
	}
	if mj.NormalTriangles != "" {
		if m.Normals, err = DecodeVec3s(mj.Normals, "normals"); err != nil {
			return nil, err
		}
		if m.NormalTriangles, err = decodeTris(mj.NormalTriangles, "normal_triangles"); err != nil {
			return nil, err
		}
	}
	for _, g := range mj.Groups {
		t, err := decodeInts(g.Triangles, "group "+g.Name)
		if err != nil {
			return nil, err
		}
		m.Groups = append(m.Groups, Group{Name: g.Name, Triangles: t})
	}
	return m, nil
}

func decodeClip(cj *clipJSON) (*Clip, error) {
	c := &Clip{Name: cj.Name, FPS: cj.FPS}
	for i, s := range cj.Frames {
		fr, err := DecodeVec3s(s, fmt.Sprintf("clip frame %d", i))
		if err != nil {
			return nil, err
		}
		c.Frames = append(c.Frames, fr)
	}
	return c, nil
}

func decodeRig(rj *rigJSON) (*Rig, error) {
	r := &Rig{}
	for _, j := range rj.Joints {
		r.Joints = append(r.Joints, Joint{Name: j.Name, Parent: j.Parent, Rest: trsFromArray(j.Rest[:]), InverseBind: mgl64.Mat4(j.InverseBind)})
	}
	counts, err := decodeInts(rj.Counts, "rig counts")
	if err != nil {
		return nil, err
	}
	joints, err := decodeInts(rj.Joint, "rig joints")
	if err != nil {
		return nil, err
	}
	weights, err := DecodeFloat64s(rj.Weights, "rig weights")
	if err != nil {
		return nil, err
	}
	if len(joints) != len(weights) {
		return nil, fmt.Errorf("rig: %d joint indices but %d weights", len(joints), len(weights))
	}
	k := 0
	for v, n := range counts {
		if n < 0 || k+n > len(joints) {
			return nil, fmt.Errorf("rig: influence count %d of vertex %d exceeds the %d influences stored", n, v, len(joints))
		}
		infl := make([]Influence, n)
		for i := range infl {
			infl[i] = Influence{Joint: joints[k+i], Weight: weights[k+i]}
		}
		r.Weights = append(r.Weights, infl)
		k += n
	}
	return r, nil
}

func decodeSkin(sj *skinJSON) (*SkinAnimation, error) {
	s := &SkinAnimation{Name: sj.Name, FPS: sj.FPS}
	for i, str := range sj.Frames {
		v, err := DecodeFloat64s(str, fmt.Sprintf("joint animation frame %d", i))
		if err != nil {
			return nil, err
		}
		if len(v)%10 != 0 {
			return nil, fmt.Errorf("joint animation frame %d: %d values, not a multiple of 10", i, len(v))
		}
		fr := make([]Transform, len(v)/10)
		for j := range fr {
			fr[j] = trsFromArray(v[10*j : 10*j+10])
		}
		s.Frames = append(s.Frames, fr)
	}
	return s, nil
}

func relPath(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func trsArray(t Transform) [10]float64 {
	return [10]float64{t.Translation[0], t.Translation[1], t.Translation[2],
		t.Rotation.V[0], t.Rotation.V[1], t.Rotation.V[2], t.Rotation.W,
		t.Scale[0], t.Scale[1], t.Scale[2]}
}

func trsFromArray(a []float64) Transform {
	return Transform{
		Translation: Vec3{a[0], a[1], a[2]},
		Rotation:    mgl64.Quat{V: Vec3{a[3], a[4], a[5]}, W: a[6]},
		Scale:       Vec3{a[7], a[8], a[9]},
	}
}

// EncodeFloat64s encodes values as base64 of little-endian float64, the
// form projects embed numbers in (exact, and compact for JSON). Tools use
// it for per-vertex data in their saved state.
func EncodeFloat64s(v []float64) string {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// DecodeFloat64s decodes what EncodeFloat64s wrote; what names the data
// in errors.
func DecodeFloat64s(s, what string) ([]float64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of float64 values", what, len(b))
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}

// EncodeVec3s encodes points as base64 of little-endian float64 triples,
// the form projects embed them in (exact, and compact for JSON). Tools use
// it for positions in their saved state.
func EncodeVec3s(p []Vec3) string {
	v := make([]float64, 0, 3*len(p))
	for _, x := range p {
		v = append(v, x[0], x[1], x[2])
	}
	return EncodeFloat64s(v)
}

// DecodeVec3s decodes what EncodeVec3s wrote; what names the data in
// errors.
func DecodeVec3s(s, what string) ([]Vec3, error) {
	v, err := DecodeFloat64s(s, what)
	if err != nil {
		return nil, err
	}
	if len(v)%3 != 0 {
		return nil, fmt.Errorf("%s: %d values, not triples", what, len(v))
	}
	p := make([]Vec3, len(v)/3)
	for i := range p {
		p[i] = Vec3{v[3*i], v[3*i+1], v[3*i+2]}
	}
	return p, nil
}

func encodeInts(v []int) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func decodeInts(s, what string) ([]int, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of int32 values", what, len(b))
	}
	v := make([]int, len(b)/4)
	for i := range v {
		v[i] = int(int32(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return v, nil
}

func encodeTris(t [][3]int) string {
	v := make([]int, 0, 3*len(t))
	for _, x := range t {
		v = append(v, x[0], x[1], x[2])
	}
	return encodeInts(v)
}

func decodeTris(s, what string) ([][3]int, error) {
	v, err := decodeInts(s, what)
	if err != nil {
		return nil, err
	}
	if len(v)%3 != 0 {
		return nil, fmt.Errorf("%s: %d indices, not triples", what, len(v))
	}
	t := make([][3]int, len(v)/3)
	for i := range t {
		t[i] = [3]int{v[3*i], v[3*i+1], v[3*i+2]}
	}
	return t, nil
}
