//go:build !amd64 || purego

package dynskin

import "github.com/go-gl/mathgl/mgl64"

// ringSumsRaw sums vertex i's ring in x into r as ringSumsGo describes.
func ringSumsRaw(r *ringSums, x []node, i int, ring []int32, edge []mgl64.Vec3) {
	ringSumsGo(r, x, i, ring, edge)
}
