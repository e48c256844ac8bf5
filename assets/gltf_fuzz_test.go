package assets

import (
	"bytes"
	"testing"
)

// FuzzReadGLB feeds arbitrary bytes to the glTF reader (as .glb or .gltf
// JSON, external buffers unavailable): it must return objects or an error,
// never panic, and whatever it returns must export.
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
			if _, err := buildGLTF(o, ExportOptions{}); err != nil && o.Mesh.NumTriangles() > 0 {
				t.Errorf("object %q reads but does not export: %v", o.Name, err)
			}
		}
	})
}
