// Package render draws a viewport's scene with OpenGL 3.3 into an
// offscreen framebuffer whose colour texture the window shows. It is the
// only package of the viewport that calls OpenGL; everything it draws is
// described by package viewport's plain types (Camera, Style, Item).
package render

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/cputime"
	"gallop/viewport"
)

// Renderer draws a scene into an offscreen framebuffer whose colour texture
// the UI shows as an image. All methods must run on the thread that owns the
// OpenGL context (giu's main thread), with the context current.
type Renderer struct {
	fbo, colorTex, depthRB uint32
	width, height          int

	meshProg, lineProg, pointProg uint32
	meshU, lineU, pointU          map[string]int32

	meshes map[any]*gpuMesh

	lineVAO, lineVBO uint32
	lineScratch      []float32

	last frameKey // what the texture shows

	// Times is where the last Render spent the CPU time of its thread
	// (zero when it drew nothing new).
	Times Times
}

// Times splits the CPU time a Render took on the calling thread
// (cputime.Thread: the time the thread ran, not the time other threads
// held the core), for the window's frame figures (gallop bench --scale):
// what Gallop computes for the GPU and what the OpenGL driver does with
// it.
type Times struct {
	// Normals is computing the vertex normals of the positions that
	// changed (with their conversion to float32).
	Normals time.Duration
	// Upload is preparing and handing OpenGL the data that changed:
	// positions and normals, colours, indices.
	Upload time.Duration
	// Draw is the rest: clearing and the draw calls, in which a
	// software rasteriser such as Mesa's llvmpipe shades the vertices and
	// bins the triangles on this thread (a GPU's work on an artist's
	// machine).
	Draw time.Duration
}

// frameKey is everything a rendered image depends on. Render skips drawing
// when it is unchanged: the texture still holds the image. Items' slices
// are compared by identity (they are never modified in place), point sets
// by content.
type frameKey struct {
	w, h     int
	cam      viewport.Camera
	style    viewport.Style
	gridStep float64
	items    []viewport.Item
}

func (k *frameKey) equal(o *frameKey) bool {
	if k.w != o.w || k.h != o.h || k.cam != o.cam || k.style != o.style || k.gridStep != o.gridStep || len(k.items) != len(o.items) {
		return false
	}
	for i := range k.items {
		a, b := &k.items[i], &o.items[i]
		if a.Key != b.Key || a.Active != b.Active || a.Wire != b.Wire || !assets.Same(a.Triangles, b.Triangles) || !assets.Same(a.Positions, b.Positions) ||
			!assets.Same(a.Colors, b.Colors) || len(a.Points) != len(b.Points) {
			return false
		}
		for j := range a.Points {
			p, q := &a.Points[j], &b.Points[j]
			if p.Color != q.Color || p.Size != q.Size || !slices.Equal(p.Indices, q.Indices) {
				return false
			}
		}
	}
	return true
}

type gpuMesh struct {
	vao, pos, nrm, col, ebo, pts uint32
	nIndex                       int32
	// cull is the face OpenGL may skip (BACK, or FRONT for an inward
	// mesh) when the topology is a closed, consistently oriented surface;
	// 0 when every face must be drawn (open surfaces show both sides).
	cull uint32
	// The slices last uploaded. Holding them (not just their addresses)
	// keeps their memory from being reused by a different slice that would
	// then look unchanged.
	tris     [][3]int
	pos3     []assets.Vec3
	colors   [][3]float32
	hasColor bool
	frame    frameData // tris and pos3 as OpenGL has them
	vertices int       // the size of the position and normal buffers
}

// New compiles the shaders and creates the buffers. Call it once the
// OpenGL context is current and gl.Init has succeeded.
func New() (*Renderer, error) {
	r := &Renderer{meshes: map[any]*gpuMesh{}}
	var err error
	if r.meshProg, err = program("mesh.vert", "mesh.frag"); err != nil {
		return nil, err
	}
	if r.lineProg, err = program("line.vert", "line.frag"); err != nil {
		return nil, err
	}
	if r.pointProg, err = program("point.vert", "point.frag"); err != nil {
		return nil, err
	}
	r.meshU = uniforms(r.meshProg, "uModel", "uView", "uProj", "uMode", "uUseVertexColor", "uBaseColor", "uWireColor", "uOrtho")
	r.lineU = uniforms(r.lineProg, "uView", "uProj")
	r.pointU = uniforms(r.pointProg, "uModel", "uView", "uProj", "uSize", "uBias", "uColor", "uOrtho")

	gl.GenVertexArrays(1, &r.lineVAO)
	gl.GenBuffers(1, &r.lineVBO)
	gl.BindVertexArray(r.lineVAO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, 7*4, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 4, gl.FLOAT, false, 7*4, 3*4)
	gl.BindVertexArray(0)
	return r, nil
}

// Release frees the renderer's OpenGL objects: framebuffer, textures,
// programs, buffers and uploaded meshes. The renderer must not be used
// afterwards. Call it on the thread whose context is current.
func (r *Renderer) Release() {
	for k, m := range r.meshes {
		m.release()
		delete(r.meshes, k)
	}
	gl.DeleteFramebuffers(1, &r.fbo)
	DeleteTexture(r.colorTex)
	gl.DeleteRenderbuffers(1, &r.depthRB)
	gl.DeleteBuffers(1, &r.lineVBO)
	gl.DeleteVertexArrays(1, &r.lineVAO)
	for _, p := range []uint32{r.meshProg, r.lineProg, r.pointProg} {
		gl.DeleteProgram(p)
	}
	*r = Renderer{}
}

// Texture returns the colour texture the last Render drew into.
func (r *Renderer) Texture() uint32 { return r.colorTex }

// Size returns the framebuffer size in pixels.
func (r *Renderer) Size() (int, int) { return r.width, r.height }

func (r *Renderer) resize(w, h int) error {
	if w == r.width && h == r.height && r.fbo != 0 {
		return nil
	}
	if r.fbo == 0 {
		gl.GenFramebuffers(1, &r.fbo)
		gl.GenTextures(1, &r.colorTex)
		gl.GenRenderbuffers(1, &r.depthRB)
	}
	r.width, r.height = w, h
	gl.BindTexture(gl.TEXTURE_2D, r.colorTex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(w), int32(h), 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	// The texture is shown pixel for pixel: nearest sampling is exact and
	// cheaper for a software rasteriser.
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.BindRenderbuffer(gl.RENDERBUFFER, r.depthRB)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, int32(w), int32(h))
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, r.colorTex, 0)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, r.depthRB)
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("viewport framebuffer %dx%d incomplete (status 0x%x)", w, h, s)
	}
	return nil
}

// Render draws items as seen by cam into a w x h framebuffer. gridStep is
// the spacing of the ground grid's lines (see GridStep).
func (r *Renderer) Render(w, h int, cam *viewport.Camera, style viewport.Style, items []viewport.Item, gridStep float64) error {
	if w <= 0 || h <= 0 {
		return nil
	}
	r.Times = Times{}
	key := frameKey{w: w, h: h, cam: *cam, style: style, gridStep: gridStep, items: items}
	if r.fbo != 0 && key.equal(&r.last) {
		return nil
	}
	r.last = key
	start := cputime.Thread()
	defer func() { r.Times.Draw = cputime.Thread() - start - r.Times.Normals - r.Times.Upload }()
	saved := saveGLState()
	defer saved.restore()
	if err := r.resize(w, h); err != nil {
		return err
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.fbo)
	gl.Viewport(0, 0, int32(w), int32(h))
	gl.Disable(gl.SCISSOR_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	gl.ClearColor(0.23, 0.23, 0.24, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)

	aspect := float64(w) / float64(h)
	view := toMat32(cam.View())
	proj := toMat32(cam.Projection(aspect))
	ortho := int32(0)
	if cam.Ortho {
		ortho = 1
	}

	seen := make(map[any]bool, len(items))
	for i := range items {
		it := &items[i]
		seen[it.Key] = true
		m := r.upload(it)
		if m == nil {
			continue
		}
		r.drawMesh(m, it, view, proj, ortho, style)
	}
	for k, m := range r.meshes {
		if !seen[k] {
			m.release()
			delete(r.meshes, k)
		}
	}

	if style.Grid && gridStep > 0 {
		r.drawGrid(cam, view, proj, gridStep)
	}
	if style.Axes {
		r.drawAxes(cam, w, h)
	}
	return nil
}

func (r *Renderer) upload(it *viewport.Item) *gpuMesh {
	if len(it.Triangles) == 0 || len(it.Positions) == 0 {
		return nil
	}
	m := r.meshes[it.Key]
	if m == nil {
		m = &gpuMesh{}
		gl.GenVertexArrays(1, &m.vao)
		gl.GenBuffers(1, &m.pos)
		gl.GenBuffers(1, &m.nrm)
		gl.GenBuffers(1, &m.col)
		gl.GenBuffers(1, &m.ebo)
		gl.GenBuffers(1, &m.pts)
		gl.BindVertexArray(m.vao)
		gl.BindBuffer(gl.ARRAY_BUFFER, m.pos)
		gl.EnableVertexAttribArray(0)
		gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, 0, 0)
		gl.BindBuffer(gl.ARRAY_BUFFER, m.nrm)
		gl.EnableVertexAttribArray(1)
		gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, 0, 0)
		gl.BindBuffer(gl.ARRAY_BUFFER, m.col)
		gl.VertexAttribPointerWithOffset(2, 3, gl.FLOAT, false, 0, 0)
		gl.BindVertexArray(0)
		r.meshes[it.Key] = m
	}
	gl.BindVertexArray(m.vao)
	if !assets.Same(it.Triangles, m.tris) {
		start := cputime.Thread()
		m.frame.setTriangles(it.Triangles)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.ebo)
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, 12*len(m.frame.idx), gl.Ptr(&m.frame.idx[0][0]), gl.STATIC_DRAW)
		m.tris, m.nIndex = it.Triangles, int32(3*len(m.frame.idx))
		m.pos3 = nil // normals depend on the triangles
		m.cull = 0
		if closedOriented(it.Triangles) {
			m.cull = gl.BACK
			if signedVolume(it.Positions, it.Triangles) < 0 {
				m.cull = gl.FRONT
			}
		}
		r.Times.Upload += cputime.Thread() - start
	}
	if !assets.Same(it.Positions, m.pos3) {
		start := cputime.Thread()
		m.frame.set(it.Positions)
		normals := cputime.Thread()
		r.Times.Normals += normals - start
		sameSize := len(it.Positions) == m.vertices
		bufferData(m.pos, m.frame.pos, sameSize)
		bufferData(m.nrm, m.frame.nrm, sameSize)
		m.pos3, m.vertices = it.Positions, len(it.Positions)
		r.Times.Upload += cputime.Thread() - normals
	}
	if len(it.Colors) == len(it.Positions) {
		if !assets.Same(it.Colors, m.colors) {
			start := cputime.Thread()
			gl.BindBuffer(gl.ARRAY_BUFFER, m.col)
			gl.BufferData(gl.ARRAY_BUFFER, 12*len(it.Colors), gl.Ptr(it.Colors), gl.DYNAMIC_DRAW)
			m.colors = it.Colors
			r.Times.Upload += cputime.Thread() - start
		}
		if !m.hasColor {
			gl.EnableVertexAttribArray(2)
			m.hasColor = true
		}
	} else if m.hasColor {
		gl.DisableVertexAttribArray(2)
		m.hasColor, m.colors = false, nil
	}
	return m
}

func (r *Renderer) drawMesh(m *gpuMesh, it *viewport.Item, view, proj mgl32.Mat4, ortho int32, style viewport.Style) {
	ident := mgl32.Ident4()
	gl.UseProgram(r.meshProg)
	gl.UniformMatrix4fv(r.meshU["uModel"], 1, false, &ident[0])
	gl.UniformMatrix4fv(r.meshU["uView"], 1, false, &view[0])
	gl.UniformMatrix4fv(r.meshU["uProj"], 1, false, &proj[0])
	gl.Uniform1i(r.meshU["uOrtho"], ortho)
	mode := int32(0)
	if style.Shading == viewport.Flat {
		mode = 1
	}
	gl.Uniform1i(r.meshU["uMode"], mode)
	useColor := int32(0)
	if m.hasColor {
		useColor = 1
	}
	gl.Uniform1i(r.meshU["uUseVertexColor"], useColor)
	if it.Active {
		gl.Uniform3f(r.meshU["uBaseColor"], 0.78, 0.78, 0.8)
	} else {
		gl.Uniform3f(r.meshU["uBaseColor"], 0.55, 0.58, 0.62)
	}
	gl.BindVertexArray(m.vao)
	if it.Wire {
		gl.Uniform1i(r.meshU["uMode"], 2)
		gl.Uniform4f(r.meshU["uWireColor"], 1, 0.8, 0.25, 1)
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
		gl.DrawElementsWithOffset(gl.TRIANGLES, m.nIndex, gl.UNSIGNED_INT, 0)
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
		gl.BindVertexArray(0)
		return
	}
	if style.Wireframe {
		// Push the surface back so its edges win the depth test.
		gl.Enable(gl.POLYGON_OFFSET_FILL)
		gl.PolygonOffset(1, 1)
	}
	if m.cull != 0 {
		// Hidden faces of a closed surface cost llvmpipe half its time.
		gl.Enable(gl.CULL_FACE)
		gl.CullFace(m.cull)
	}
	gl.DrawElementsWithOffset(gl.TRIANGLES, m.nIndex, gl.UNSIGNED_INT, 0)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	if style.Wireframe {
		gl.Uniform1i(r.meshU["uMode"], 2)
		gl.Uniform4f(r.meshU["uWireColor"], 0.08, 0.08, 0.1, 1)
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
		gl.DrawElementsWithOffset(gl.TRIANGLES, m.nIndex, gl.UNSIGNED_INT, 0)
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	}
	gl.Disable(gl.CULL_FACE)
	if len(it.Points) > 0 {
		gl.UseProgram(r.pointProg)
		gl.Enable(gl.PROGRAM_POINT_SIZE)
		gl.Enable(gl.BLEND)
		gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
		gl.UniformMatrix4fv(r.pointU["uModel"], 1, false, &ident[0])
		gl.UniformMatrix4fv(r.pointU["uView"], 1, false, &view[0])
		gl.UniformMatrix4fv(r.pointU["uProj"], 1, false, &proj[0])
		gl.Uniform1i(r.pointU["uOrtho"], ortho)
		gl.Uniform1f(r.pointU["uBias"], 0.003)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.pts)
		for _, ps := range it.Points {
			if len(ps.Indices) == 0 {
				continue
			}
			gl.Uniform1f(r.pointU["uSize"], ps.Size)
			gl.Uniform4f(r.pointU["uColor"], ps.Color[0], ps.Color[1], ps.Color[2], ps.Color[3])
			gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, 4*len(ps.Indices), gl.Ptr(ps.Indices), gl.STREAM_DRAW)
			gl.DrawElementsWithOffset(gl.POINTS, int32(len(ps.Indices)), gl.UNSIGNED_INT, 0)
		}
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.ebo)
		gl.Disable(gl.BLEND)
	}
	gl.BindVertexArray(0)
}

// closedOriented reports whether triangles form closed surfaces with
// consistent orientation: every directed edge (a, b) is matched by exactly
// one opposite edge (b, a). Only then is a face seen from behind always
// hidden by another, so culling it changes nothing.
func closedOriented(triangles [][3]int) bool {
	if len(triangles) == 0 {
		return false
	}
	edges := make(map[[2]int]int8, 3*len(triangles))
	for _, t := range triangles {
		for k := 0; k < 3; k++ {
			e := [2]int{t[k], t[(k+1)%3]}
			if e[0] == e[1] || edges[e] != 0 {
				return false // degenerate, or an edge used twice the same way
			}
			edges[e] = 1
		}
	}
	for e := range edges {
		if edges[[2]int{e[1], e[0]}] == 0 {
			return false // a boundary edge
		}
	}
	return true
}

// signedVolume returns the volume enclosed by a closed surface, positive
// when its triangles face outward (counter-clockwise seen from outside).
func signedVolume(positions []assets.Vec3, triangles [][3]int) float64 {
	v := 0.0
	for _, t := range triangles {
		v += positions[t[0]].Dot(positions[t[1]].Cross(positions[t[2]]))
	}
	return v / 6
}

// drawGrid draws 2n+1 lines each way on y = 0 around the camera target,
// every 10th darker, with the x axis red and the z axis blue as in Blender.
func (r *Renderer) drawGrid(cam *viewport.Camera, view, proj mgl32.Mat4, step float64) {
	const n = 30
	cx := math.Round(cam.Target[0]/step) * step
	cz := math.Round(cam.Target[2]/step) * step
	ext := n * step
	v := r.lineScratch[:0]
	minor := [4]float32{0.33, 0.33, 0.34, 1}
	major := [4]float32{0.4, 0.4, 0.41, 1}
	for i := -n; i <= n; i++ {
		x := cx + float64(i)*step
		z := cz + float64(i)*step
		cX, cZ := minor, minor
		if int(math.Round(x/step))%10 == 0 {
			cX = major
		}
		if int(math.Round(z/step))%10 == 0 {
			cZ = major
		}
		if math.Abs(x) < step/2 {
			cX = [4]float32{0.25, 0.4, 0.75, 1} // the z axis
		}
		if math.Abs(z) < step/2 {
			cZ = [4]float32{0.75, 0.25, 0.27, 1} // the x axis
		}
		v = appendLine(v, mgl64.Vec3{x, 0, cz - ext}, mgl64.Vec3{x, 0, cz + ext}, cX)
		v = appendLine(v, mgl64.Vec3{cx - ext, 0, z}, mgl64.Vec3{cx + ext, 0, z}, cZ)
	}
	r.lineScratch = v
	r.drawLines(v, view, proj)
}

// drawAxes draws the axis indicator: the world axes rotated like the view,
// in an 80-pixel square in the lower-left corner.
func (r *Renderer) drawAxes(cam *viewport.Camera, w, h int) {
	const size = 80
	if w < 2*size || h < 2*size {
		return
	}
	gl.Viewport(8, 8, size, size)
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(8, 8, size, size)
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	gl.Disable(gl.SCISSOR_TEST)
	rot := cam.View()
	rot[12], rot[13], rot[14] = 0, 0, -3
	view := toMat32(rot)
	proj := mgl32.Ortho(-1.2, 1.2, -1.2, 1.2, 0.1, 10)
	v := r.lineScratch[:0]
	for k, c := range [3][4]float32{{0.9, 0.3, 0.3, 1}, {0.45, 0.8, 0.3, 1}, {0.35, 0.55, 0.95, 1}} {
		e := mgl64.Vec3{}
		e[k] = 1
		v = appendLine(v, mgl64.Vec3{}, e, c)
	}
	r.lineScratch = v
	r.drawLines(v, view, proj)
	gl.Viewport(0, 0, int32(w), int32(h))
}

// appendLine appends a line segment from a to b of colour c to a vertex
// buffer of the line program (position xyz, colour rgba per vertex).
func appendLine(v []float32, a, b mgl64.Vec3, c [4]float32) []float32 {
	v = append(v, float32(a[0]), float32(a[1]), float32(a[2]), c[0], c[1], c[2], c[3])
	return append(v, float32(b[0]), float32(b[1]), float32(b[2]), c[0], c[1], c[2], c[3])
}

func (r *Renderer) drawLines(v []float32, view, proj mgl32.Mat4) {
	gl.UseProgram(r.lineProg)
	gl.UniformMatrix4fv(r.lineU["uView"], 1, false, &view[0])
	gl.UniformMatrix4fv(r.lineU["uProj"], 1, false, &proj[0])
	gl.BindVertexArray(r.lineVAO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	gl.BufferData(gl.ARRAY_BUFFER, 4*len(v), gl.Ptr(v), gl.STREAM_DRAW)
	gl.DrawArrays(gl.LINES, 0, int32(len(v)/7))
	gl.BindVertexArray(0)
}

// ReadPixels returns the framebuffer's pixels as RGBA rows, bottom row first
// (OpenGL's order), for tests and thumbnails.
func (r *Renderer) ReadPixels() []byte {
	if r.fbo == 0 {
		return nil
	}
	saved := saveGLState()
	defer saved.restore()
	buf := make([]byte, 4*r.width*r.height)
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.fbo)
	gl.ReadPixels(0, 0, int32(r.width), int32(r.height), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(buf))
	return buf
}

// CopyTexture copies the image of the last Render into the texture dst
// (a new texture when dst is 0, resized to the framebuffer's size) and
// returns it: a picture that outlives the next Render, such as a
// thumbnail. Free it with DeleteTexture.
func (r *Renderer) CopyTexture(dst uint32) uint32 {
	if r.fbo == 0 {
		return dst
	}
	saved := saveGLState()
	defer saved.restore()
	if dst == 0 {
		gl.GenTextures(1, &dst)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.fbo)
	gl.BindTexture(gl.TEXTURE_2D, dst)
	gl.CopyTexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 0, 0, int32(r.width), int32(r.height), 0)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	return dst
}

// DeleteTexture frees a texture made by CopyTexture (0 is ignored).
func DeleteTexture(tex uint32) {
	if tex != 0 {
		gl.DeleteTextures(1, &tex)
	}
}

func (m *gpuMesh) release() {
	gl.DeleteBuffers(1, &m.pos)
	gl.DeleteBuffers(1, &m.nrm)
	gl.DeleteBuffers(1, &m.col)
	gl.DeleteBuffers(1, &m.ebo)
	gl.DeleteBuffers(1, &m.pts)
	gl.DeleteVertexArrays(1, &m.vao)
}

// bufferData gives OpenGL's array buffer buf the vectors data, in place
// when it has their size already.
func bufferData(buf uint32, data [][3]float32, sameSize bool) {
	gl.BindBuffer(gl.ARRAY_BUFFER, buf)
	if sameSize {
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, 12*len(data), gl.Ptr(&data[0][0]))
	} else {
		gl.BufferData(gl.ARRAY_BUFFER, 12*len(data), gl.Ptr(&data[0][0]), gl.DYNAMIC_DRAW)
	}
}

// toMat32 converts a matrix to OpenGL's float32.
func toMat32(m mgl64.Mat4) mgl32.Mat4 {
	var r mgl32.Mat4
	for i := range m {
		r[i] = float32(m[i])
	}
	return r
}
