package assets

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// FuzzReadProject feeds arbitrary bytes to the project reader: it must
// return a project or an error, never panic, hang or allocate without
// bound, and a project it returns must encode and read back. References
// to other files are refused (a fuzzed path could name any file of the
// machine); embedded objects are read in full.
func FuzzReadProject(f *testing.F) {
	const dir = "/nonexistent"
	seed := func(p *Project) {
		var b bytes.Buffer
		if err := writeProject(&b, p, dir); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	// Small seeds (a triangle with a clip, a rigged triangle with a joint
	// animation, a referenced OBJ): the fuzzer mutates faster the shorter
	// its inputs are.
	tri := &Mesh{Name: "tri", Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}},
		Groups: []Group{{Name: "g", Triangles: []int{0}}}}
	clip := &Clip{Name: "c", FPS: 24, Frames: [][]Vec3{tri.Positions, {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}}}
	seed(&Project{Scene: &Scene{Objects: []*Object{{Name: "a", Mesh: tri, Clip: clip}}}, Embed: true, Selection: []int{1}})
	rig := &Rig{Joints: []Joint{{Name: "j", Parent: -1, Rest: IdentityTransform(), InverseBind: mgl64.Ident4()}},
		Weights: [][]Influence{{{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}, {{Joint: 0, Weight: 1}}}}
	skin := &SkinAnimation{Name: "s", FPS: 24, Frames: [][]Transform{{IdentityTransform()}, {IdentityTransform()}}}
	seed(&Project{Scene: &Scene{Objects: []*Object{{Name: "r", Mesh: tri, Rig: rig, Skin: skin}}}, Embed: true})
	seed(&Project{Scene: &Scene{Objects: []*Object{{Name: "f", Mesh: tri, Source: &Source{Kind: SourceOBJ, Paths: []string{"/nonexistent/a.obj"}}}}}})
	noFiles := func(context.Context, *Source, func(int, int)) ([]*Object, error) {
		return nil, errors.New("no referenced files while fuzzing")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodeProject(context.Background(), data, dir, noFiles, nil)
		if err != nil {
			return
		}
		var b bytes.Buffer
		p.Embed = true
		if err := writeProject(&b, p, dir); err != nil {
			t.Fatalf("a project that reads does not encode: %v", err)
		}
		if _, err := decodeProject(context.Background(), b.Bytes(), dir, noFiles, nil); err != nil {
			t.Fatalf("a project that reads and encodes does not read back: %v", err)
		}
	})
}
