package assets

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadGLB feeds arbitrary bytes to the glTF reader (as .glb or .gltf
// JSON, external buffers unavailable): it must return objects or an error,
// never panic, and whatever it returns must export (as morph targets: an
// animation of more than MaxMorphFrames frames must fail with that
// message instead, in bounded memory; an object without triangles fails
// first, whatever its length).
func FuzzReadGLB(f *testing.F) {
	f.Add(gltfBytes(f, gltfTetra(), ExportMorph, true))
	f.Add(gltfBytes(f, gltfRiggedTetra(), ExportSkin, true))
	f.Add(gltfBytes(f, gltfRiggedTetra(), ExportMorph, true))
	f.Add(gltfBytes(f, gltfTetra(), ExportMorph, false))
	var rigid bytes.Buffer
	if err := encodeGLTF(&rigid, gltfRigidDoc(), true); err != nil {
		f.Fatal(err)
	}
	f.Add(rigid.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := readGLTFBytes(data, nil)
		if err != nil {
			return
		}
		for _, o := range objs {
			_, err := buildGLTF(o, ExportOptions{})
			switch {
			case o.Mesh.NumTriangles() == 0: // nothing to export: refused, first
				if err == nil {
					t.Errorf("object %q without triangles exports", o.Name)
				}
			case o.NumFrames() > MaxMorphFrames && (o.Rig == nil || o.Skin == nil): // exported as morph targets
				if err == nil || !strings.Contains(err.Error(), "as morph targets: at most") {
					t.Errorf("object %q of %d frames as morph targets: %v", o.Name, o.NumFrames(), err)
				}
			case err != nil:
				t.Errorf("object %q reads but does not export: %v", o.Name, err)
			}
		}
	})
}
