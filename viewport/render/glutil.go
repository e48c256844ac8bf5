package render

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"gallop/shaders"
)

// program compiles and links a vertex and a fragment shader from package
// shaders. The error carries the driver's log and the file names.
func program(vertName, fragName string) (uint32, error) {
	vs, err := compile(vertName, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(vs)
	fs, err := compile(fragName, gl.FRAGMENT_SHADER)
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(fs)
	p := gl.CreateProgram()
	gl.AttachShader(p, vs)
	gl.AttachShader(p, fs)
	gl.LinkProgram(p)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		gl.DeleteProgram(p)
		return 0, fmt.Errorf("linking %s + %s: %s", vertName, fragName, strings.TrimRight(log, "\x00"))
	}
	return p, nil
}

func compile(name string, kind uint32) (uint32, error) {
	src, err := shaders.Source(name)
	if err != nil {
		return 0, err
	}
	s := gl.CreateShader(kind)
	csrc, free := gl.Strs(src)
	gl.ShaderSource(s, 1, csrc, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(log))
		gl.DeleteShader(s)
		return 0, fmt.Errorf("compiling %s: %s", name, strings.TrimRight(log, "\x00"))
	}
	return s, nil
}

// uniforms looks up the locations of a program's uniforms once.
func uniforms(p uint32, names ...string) map[string]int32 {
	m := make(map[string]int32, len(names))
	for _, n := range names {
		m[n] = gl.GetUniformLocation(p, gl.Str(n+"\x00"))
	}
	return m
}

// glState is the part of OpenGL state the viewport changes, saved before it
// draws and restored after, so ImGui's own renderer finds what it left.
type glState struct {
	fbo, program, vao, arrayBuffer  int32
	viewport                        [4]int32
	depthTest, blend, cull, scissor bool
	polygonMode                     [2]int32
	programPointSize, depthMask     bool
}

func saveGLState() glState {
	var s glState
	gl.GetIntegerv(gl.FRAMEBUFFER_BINDING, &s.fbo)
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &s.program)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &s.vao)
	gl.GetIntegerv(gl.ARRAY_BUFFER_BINDING, &s.arrayBuffer)
	gl.GetIntegerv(gl.VIEWPORT, &s.viewport[0])
	gl.GetIntegerv(gl.POLYGON_MODE, &s.polygonMode[0])
	s.depthTest = gl.IsEnabled(gl.DEPTH_TEST)
	s.blend = gl.IsEnabled(gl.BLEND)
	s.cull = gl.IsEnabled(gl.CULL_FACE)
	s.scissor = gl.IsEnabled(gl.SCISSOR_TEST)
	s.programPointSize = gl.IsEnabled(gl.PROGRAM_POINT_SIZE)
	var mask bool
	gl.GetBooleanv(gl.DEPTH_WRITEMASK, &mask)
	s.depthMask = mask
	return s
}

func (s glState) restore() {
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(s.fbo))
	gl.UseProgram(uint32(s.program))
	gl.BindVertexArray(uint32(s.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.arrayBuffer))
	gl.Viewport(s.viewport[0], s.viewport[1], s.viewport[2], s.viewport[3])
	gl.PolygonMode(gl.FRONT_AND_BACK, uint32(s.polygonMode[0]))
	setEnabled(gl.DEPTH_TEST, s.depthTest)
	setEnabled(gl.BLEND, s.blend)
	setEnabled(gl.CULL_FACE, s.cull)
	setEnabled(gl.SCISSOR_TEST, s.scissor)
	setEnabled(gl.PROGRAM_POINT_SIZE, s.programPointSize)
	gl.DepthMask(s.depthMask)
}

func setEnabled(cap uint32, on bool) {
	if on {
		gl.Enable(cap)
	} else {
		gl.Disable(cap)
	}
}
