package dynamics

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
)

// MinExampleFrames is the fewest frames an example may have.
const MinExampleFrames = 3

// LoadExample reads an example animation of o's mesh (a folder of OBJ
// frames, or a .gltf/.glb file whose first object is used) for a goal of
// goalFrames frames at goalFPS, and checks it: the same vertices and
// triangles as o's mesh, at least MinExampleFrames frames, as many as the
// goal, and the goal's frame rate (an OBJ sequence, which names none, is
// taken to have it). Errors name the file and what is wrong.
func LoadExample(ctx context.Context, path string, o *assets.Object, goalFrames int, goalFPS float64) ([][]mgl64.Vec3, error) {
	objs, err := assets.Import(ctx, []string{path}, nil)
	if err != nil {
		return nil, err
	}
	ex := objs[0]
	if ex.Clip == nil {
		return nil, fmt.Errorf("%s: not an animation (one frame)", path)
	}
	if ex.Source == nil || ex.Source.Kind == assets.SourceOBJSequence {
		ex.Clip.FPS = goalFPS
	}
	if err := CheckExample(o, ex.Mesh, ex.Clip, goalFrames, goalFPS); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ex.Clip.Frames, nil
}

// SameMesh reports how mesh differs from o's: another vertex count, or
// other triangles (compared as sets, each up to the rotation of its
// corners).
func SameMesh(o *assets.Object, mesh *assets.Mesh) error {
	if nv, want := mesh.NumVertices(), o.Mesh.NumVertices(); nv != want {
		return fmt.Errorf("%d vertices, %s has %d", nv, o.Name, want)
	}
	if t := firstOtherTriangle(mesh.Triangles, o.Mesh.Triangles); t >= 0 {
		return fmt.Errorf("its triangles are not those of %s (triangle %d of %d differs)", o.Name, t, len(mesh.Triangles))
	}
	return nil
}

// CheckExample checks an example (mesh and clip) against object o and its
// goal (see LoadExample).
func CheckExample(o *assets.Object, mesh *assets.Mesh, clip *assets.Clip, goalFrames int, goalFPS float64) error {
	if err := SameMesh(o, mesh); err != nil {
		return err
	}
	if n := clip.NumFrames(); n < MinExampleFrames {
		return fmt.Errorf("%d frames, at least %d are needed", n, MinExampleFrames)
	}
	if math.Abs(clip.FPS-goalFPS) > 1e-6*goalFPS {
		return fmt.Errorf("%v frames per second, the goal animation has %v", clip.FPS, goalFPS)
	}
	if n := clip.NumFrames(); n != goalFrames {
		return fmt.Errorf("%d frames, the goal animation has %d", n, goalFrames)
	}
	return nil
}

// firstOtherTriangle returns the index in a of the first triangle that is
// not in b (as a set of triangles, each up to rotation of its corners),
// len(a) when b has more, or −1 when both hold the same triangles.
func firstOtherTriangle(a, b [][3]int) int {
	canon := func(t [3]int) [3]int {
		k := 0
		for i := 1; i < 3; i++ {
			if t[i] < t[k] {
				k = i
			}
		}
		return [3]int{t[k], t[(k+1)%3], t[(k+2)%3]}
	}
	key := func(t [3]int) int64 {
		c := canon(t)
		return int64(c[0])<<42 | int64(c[1])<<21 | int64(c[2])
	}
	set := make([]int64, len(b))
	for i, t := range b {
		set[i] = key(t)
	}
	slices.Sort(set)
	for i, t := range a {
		if _, ok := slices.BinarySearch(set, key(t)); !ok {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
