package viewport

import (
	"math"

	"gallop/assets"
)

// Shading selects how meshes are lit.
type Shading int

const (
	// Smooth interpolates the area-weighted vertex normals of the frame shown.
	Smooth Shading = iota
	// Flat lights each triangle with its own normal.
	Flat
)

// Style holds the display settings of a viewport (View menu).
type Style struct {
	Shading   Shading
	Wireframe bool // overlay triangle edges on the shaded surface
	Grid      bool // ground grid on the y = 0 plane
	Axes      bool // axis indicator in the lower-left corner
}

// DefaultStyle is what a new viewport shows.
func DefaultStyle() Style { return Style{Shading: Smooth, Grid: true, Axes: true} }

// PointSet is a set of a mesh's vertices drawn as round markers (the
// selection, handles).
type PointSet struct {
	Indices []uint32
	Color   [4]float32
	Size    float32 // diameter in pixels
}

// Item is one mesh to draw. The renderer keeps GPU buffers per Key and
// re-uploads a slice only when it is a different slice than last time
// (compared by identity), so callers pass clip frames and solver snapshots
// as they are; a slice must not be modified after it was passed.
type Item struct {
	Key       any      // identity of the object (its pointer)
	Triangles [][3]int // topology
	Positions []assets.Vec3
	Colors    [][3]float32 // per-vertex heat-map colours, or nil for the base colour
	Points    []PointSet
	Active    bool // the object being edited: drawn in the light base colour
	// Wire draws only the item's edges, in the overlay colour: a mesh laid
	// over another to compare them (the plain skinning over the dynamic
	// surface).
	Wire bool
}

// GridStep returns a grid spacing, a power of ten, that gives a few dozen
// lines across a scene of the given size.
func GridStep(size float64) float64 {
	if !(size > 0) || math.IsInf(size, 0) {
		return 1
	}
	return math.Pow(10, math.Floor(math.Log10(size/2)))
}
