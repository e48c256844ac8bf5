package assets

import (
	"fmt"
	"math"
)

// Object is one animated mesh of a scene: the mesh in its rest pose, and
// optionally a clip of vertex positions and a rig with its joint animation.
// When both a rig animation and a clip are present the clip is the rig
// animation baked (or an independent animation of the same mesh).
type Object struct {
	Name string
	Mesh *Mesh
	Clip *Clip          // may be nil: a static mesh
	Rig  *Rig           // may be nil
	Skin *SkinAnimation // joint animation of Rig; may be nil

	// Takes are the object's other clips, not playing: the other
	// animations of its glTF file, and the clip a tool's result took the
	// place of (the captured clip an applied rig approximates, the skinned
	// clip under baked dynamics), kept so that nothing the artist had is
	// lost; the properties panel plays one instead.
	Takes []Take

	// Hidden objects are not drawn in the viewport (the object list's
	// eye, H / Shift+H / Alt+H as in Blender); saved in the project.
	Hidden bool

	// Source is where the object was loaded from, so project files can
	// reference it instead of embedding it. Nil for objects made or edited
	// in Gallop, which are embedded.
	Source *Source
}

// Take is an object's clip that is not playing, with the joint animation
// it goes with when it has one of its own (another animation of a skinned
// glTF file); a take without one plays with the object's joint animation.
type Take struct {
	Clip *Clip
	Skin *SkinAnimation // may be nil
}

// Source kinds.
const (
	SourceOBJ         = "obj"    // one OBJ file: a static mesh
	SourceOBJSequence = "objseq" // OBJ files or a folder of them: a clip
	SourceGLTF        = "gltf"   // one object of a .gltf / .glb file
)

// Source names the file or files an object was read from.
type Source struct {
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`           // for objseq: files or one folder; else one file
	Index int      `json:"index,omitempty"` // for gltf: which of the file's objects
}

// Validate checks the object's parts against each other.
func (o *Object) Validate() error {
	if o.Mesh == nil {
		return fmt.Errorf("object %q: no mesh", o.Name)
	}
	if err := o.Mesh.Validate(); err != nil {
		return fmt.Errorf("object %q: %w", o.Name, err)
	}
	nv := o.Mesh.NumVertices()
	if o.Clip != nil {
		if err := o.Clip.Validate(nv); err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
	}
	for i, tk := range o.Takes {
		if tk.Clip == nil {
			return fmt.Errorf("object %q: take %d has no clip", o.Name, i)
		}
		if err := tk.Clip.Validate(nv); err != nil {
			return fmt.Errorf("object %q: take %d: %w", o.Name, i, err)
		}
		if tk.Skin != nil {
			if err := o.checkSkin(tk.Skin); err != nil {
				return fmt.Errorf("object %q: take %d: %w", o.Name, i, err)
			}
		}
	}
	if o.Rig != nil {
		if err := o.Rig.Validate(nv); err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
	}
	if o.Skin != nil {
		if err := o.checkSkin(o.Skin); err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
	}
	return nil
}

// checkSkin checks a joint animation against the object's rig.
func (o *Object) checkSkin(s *SkinAnimation) error {
	if o.Rig == nil {
		return fmt.Errorf("joint animation without a rig")
	}
	if !(s.FPS > 0) || math.IsInf(s.FPS, 0) {
		return fmt.Errorf("joint animation frame rate %v is not a positive number", s.FPS)
	}
	for i, f := range s.Frames {
		if len(f) != len(o.Rig.Joints) {
			return fmt.Errorf("joint animation frame %d has %d transforms, rig has %d joints", i, len(f), len(o.Rig.Joints))
		}
	}
	return nil
}

// NumFrames returns the number of animation frames (1 for a static mesh).
func (o *Object) NumFrames() int {
	if o.Clip != nil && len(o.Clip.Frames) > 0 {
		return len(o.Clip.Frames)
	}
	return 1
}

// FPS returns the frame rate of the object's clip, or DefaultFPS.
func (o *Object) FPS() float64 {
	if o.Clip != nil && o.Clip.FPS > 0 {
		return o.Clip.FPS
	}
	return DefaultFPS
}

// PositionsAt returns the vertex positions shown at frame i (clamped to the
// clip), or the rest positions for a static mesh. The slice is shared; do
// not modify it.
func (o *Object) PositionsAt(i int) []Vec3 {
	if o.Clip == nil || len(o.Clip.Frames) == 0 {
		return o.Mesh.Positions
	}
	i = max(0, min(i, len(o.Clip.Frames)-1))
	return o.Clip.Frames[i]
}

// Scene is the set of objects in a document.
type Scene struct {
	Objects []*Object
}
