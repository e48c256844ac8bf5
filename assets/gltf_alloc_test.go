package assets

import (
	"fmt"
	"strings"
	"testing"
)

// longMorphGLTF is a glTF file of a few hundred bytes: a mesh of n
// zero-filled vertices (no buffer view), one morph target, and a weights
// animation whose two keys are seconds apart, which bakes into seconds ×
// 24 frames of n positions.
func longMorphGLTF(n int, seconds float64) []byte {
	return []byte(fmt.Sprintf(`{"asset":{"version":"2.0"},
"buffers":[{"byteLength":16,"uri":"data:application/octet-stream;base64,AAAAAAAA+kQAAAAAAACAPw=="}],
"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":8},{"buffer":0,"byteOffset":8,"byteLength":8}],
"accessors":[
 {"componentType":5126,"type":"VEC3","count":%d,"min":[0,0,0],"max":[0,0,0]},
 {"componentType":5126,"type":"VEC3","count":%d},
 {"bufferView":0,"componentType":5126,"type":"SCALAR","count":2,"min":[0],"max":[%g]},
 {"bufferView":1,"componentType":5126,"type":"SCALAR","count":2}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"targets":[{"POSITION":1}]}],"weights":[0]}],
"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0,
"animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"weights"}}],"samplers":[{"input":2,"output":3}]}]}`, n, n, seconds))
}

// TestGLTFBakeBoundedByFileSize: a 1 kB file asking for 48,001 frames of
// 498 vertices (24 million positions, 570 MB) gets an error naming the
// limit instead of the allocation; the same animation on a mesh small
// enough for the budget reads.
func TestGLTFBakeBoundedByFileSize(t *testing.T) {
	big := longMorphGLTF(498, 2000) // the buffer's key is at 2000 s
	if len(big) > 2048 {
		t.Fatalf("the test file is %d bytes", len(big))
	}
	_, err := readGLTFBytes(big, nil)
	if err == nil || !strings.Contains(err.Error(), "positions this file may still bake") {
		t.Fatalf("a %d-byte file baking 24M positions: error %v", len(big), err)
	}
	small := longMorphGLTF(3, 2000)
	objs, err := readGLTFBytes(small, nil)
	if err != nil {
		t.Fatalf("3 vertices × 48001 frames: %v", err)
	}
	if nf := len(objs[0].Clip.Frames); nf != 48001 {
		t.Errorf("%d frames, want 48001", nf)
	}
}
