//go:build !amd64 || purego

package dynskin

import "github.com/go-gl/mathgl/mgl64"

// ringSumsRaw sums slot i's ring in x into r as ringSumsGo describes.
func ringSumsRaw(r *ringSums, x []node, i int, ring []int32, rest []mgl64.Vec3, mean0 *mgl64.Vec3) {
	ringSumsGo(r, x, i, ring, rest, mean0)
}
