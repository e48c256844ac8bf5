package synth

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
	"gallop/solver/ssdr"
)

// Request describes the clips to synthesise.
type Request struct {
	Frames  int   // L, the output length in frames
	Blend   Blend // how splices are smoothed
	Window  int   // W, the half-width of a splice's blending window in frames; default 6
	Hold    int   // the least number of frames between two splices of a part; default 2W
	Targets []Target

	// Obstacles the clip's mesh must not touch. A walk is searched
	// depth-first, each frame tested at its unblended pose against the
	// obstacles grown by Margin (default 1% of the rest mesh's diagonal);
	// the finished clip is tested at every frame exactly, and drawn again
	// from the next random stream if it fails, up to Attempts times
	// (default 16).
	Obstacles []Obstacle
	Margin    float64
	Attempts  int

	// Affine keeps the blended bones as the blend gives them (general
	// affine maps: Eq. 9's least squares, a crossfade of matrix entries)
	// instead of projecting each to its nearest rigid motion. For
	// comparisons of the blends only: such bones scale and shear, and a
	// skinned export needs rigid ones.
	Affine bool
}

func (r *Request) withDefaults(a *Analysis) {
	if r.Window <= 0 {
		r.Window = 6
	}
	if r.Hold <= 0 {
		r.Hold = 2 * r.Window
	}
	if r.Margin <= 0 {
		r.Margin = 0.01 * a.Diagonal
	}
	if r.Attempts <= 0 {
		r.Attempts = 16
	}
}

// Clip is one synthesised animation: every bone's position in the world
// at every output frame, and each part's walk.
type Clip struct {
	Seed     uint64     // the first part's seed: the clip's, for Clip
	Seeds    []uint64   // each part's seed (Mix)
	Attempt  int        // the random stream that gave it (0 unless obstacles made earlier ones fail)
	Bones    [][]Affine // per output frame, per bone
	Walks    []Walk     // per part
	Analysis *Analysis
}

// Pose writes the mesh at output frame t into dst (grown as needed) and
// returns it.
func (c *Clip) Pose(dst []mgl64.Vec3, t int) []mgl64.Vec3 {
	m := c.Analysis.Model
	return ssdr.Skin(dst, m.Rest, m.Weights, c.Bones[t])
}

// Synthesizer draws clips for one request. It is safe for concurrent use.
type Synthesizer struct {
	a      *Analysis
	req    Request
	plans  []*plan
	driver int            // the part whose walk places the reference bone in the world
	input  [][]mgl64.Vec3 // the model's pose at every input frame, for obstacle tests
}

// NewSynthesizer prepares req with graphs, one per part (in the order of
// Analysis.Parts). It fails if the request cannot be met: an output of
// fewer than two frames, targets outside the input or the output, or
// targets no walk can meet.
func (a *Analysis) NewSynthesizer(graphs []*Graph, req Request) (*Synthesizer, error) {
	if len(graphs) != len(a.Parts) {
		return nil, fmt.Errorf("synth: %d graphs for %d parts", len(graphs), len(a.Parts))
	}
	if req.Frames < 2 {
		return nil, fmt.Errorf("synth: an output of %d frames; want at least 2", req.Frames)
	}
	req.withDefaults(a)
	s := &Synthesizer{a: a, req: req}
	for k, p := range a.Parts {
		pl, err := newPlan(p, graphs[k], &s.req)
		if err != nil {
			if len(a.Parts) > 1 {
				err = fmt.Errorf("part %d: %w", k+1, err)
			}
			return nil, err
		}
		s.plans = append(s.plans, pl)
		if p.Reference == a.Parts[0].Reference && len(p.Bones) > len(a.Parts[s.driver].Bones) {
			s.driver = k
		}
	}
	if len(req.Obstacles) > 0 {
		m := a.Model
		s.input = make([][]mgl64.Vec3, m.NumFrames())
		parallel.For(len(s.input), func(x int) {
			s.input[x] = ssdr.Skin(nil, m.Rest, m.Weights, m.Bones[x])
		})
	}
	return s, nil
}

// ErrBlocked is wrapped by the error of a clip whose obstacles no walk
// found could avoid.
var ErrBlocked = errors.New("the obstacles block every walk tried")

// Clip synthesises the clip of seed: Mix with seed for every part. The
// result depends on the seed alone.
func (s *Synthesizer) Clip(ctx context.Context, seed uint64) (*Clip, error) {
	return s.Mix(ctx, slices.Repeat([]uint64{seed}, len(s.plans)))
}

// Mix synthesises the clip whose part k walks its own motion graph on the
// random stream of seeds[k] (the stream (seed, attempt, k)), so that each
// component's variation is picked separately; the driver part (the one of
// most bones) also places the reference bone in the world (Eq. 7). A
// clip's walks are redrawn, on the next attempt's streams, while
// obstacles reject them. The result depends on the seeds alone.
func (s *Synthesizer) Mix(ctx context.Context, seeds []uint64) (*Clip, error) {
	if len(seeds) != len(s.plans) {
		return nil, fmt.Errorf("%d seeds for %d parts", len(seeds), len(s.plans))
	}
	var scratch *collider
	if len(s.req.Obstacles) > 0 {
		scratch = newCollider(s.a.Model)
	}
	for attempt := range s.req.Attempts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := s.attempt(seeds, attempt, scratch)
		if errors.Is(err, errBudget) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if scratch == nil || s.clear(c, scratch) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("clip of seed %d: %w (%d attempts)", seeds[0], ErrBlocked, s.req.Attempts)
}

func (s *Synthesizer) attempt(seeds []uint64, attempt int, col *collider) (*Clip, error) {
	a := s.a
	c := &Clip{Seed: seeds[0], Seeds: slices.Clone(seeds), Attempt: attempt, Analysis: a, Walks: make([]Walk, len(a.Parts))}
	for k, pl := range s.plans {
		rng := rand.New(rand.NewPCG(seeds[k], uint64(attempt)<<16|uint64(k)))
		var test func(t, x int, at Affine) bool
		if col != nil && k == s.driver {
			test = func(_, x int, at Affine) bool { return !col.hits(s.input[x], at, s.req.Obstacles, s.req.Margin) }
		}
		w, err := pl.walk(rng, s.align, test, 20*s.req.Frames)
		if err != nil {
			return nil, err
		}
		c.Walks[k] = w
	}
	s.assemble(c)
	return c, nil
}

// align returns the rigid map that places input frame j where the map at
// (input frame i placed by at) has the reference bone, Eq. 7:
// at ∘ Ref(i) ∘ Ref(j)⁻¹.
func (s *Synthesizer) align(at Affine, i, j int) Affine {
	m, ref := s.a.Model, s.a.Parts[s.driver].Reference
	ri, rj := m.Bones[i][ref], m.Bones[j][ref]
	rt := rj.R.Transpose()
	inv := Affine{R: rt, T: rt.Mul3x1(rj.T).Mul(-1)}
	return compose(compose(inv, ri), at)
}

// assemble fills c.Bones: each part's blended local-frame bones carried
// into the world by the reference bone, which the driver's walk places
// (Eq. 7 and 10).
func (s *Synthesizer) assemble(c *Clip) {
	a, m := s.a, s.a.Model
	L := s.req.Frames
	nb := m.NumBones()
	c.Bones = make([][]Affine, L)
	all := make([]Affine, L*nb)
	dw := c.Walks[s.driver]
	ref := a.Parts[s.driver].Reference
	at := Affine{R: mgl64.Ident3()}
	next := 0
	for t := range L {
		x := dw.Source[t]
		if t > 0 && next < len(dw.Splices) && dw.Splices[next] == t-1 {
			at = s.align(at, dw.Source[t-1], x-1)
			next++
		}
		c.Bones[t] = all[t*nb : (t+1)*nb : (t+1)*nb]
		c.Bones[t][ref] = compose(m.Bones[x][ref], at)
	}
	for k, p := range a.Parts {
		p.localPositions(c.Walks[k], s.req.Blend, s.req.Window, s.req.Affine, func(t int, local []Affine) {
			world := c.Bones[t][p.Reference]
			for col, b := range p.Bones {
				c.Bones[t][b] = compose(local[col], world)
			}
		})
	}
}

// clear tests every frame of c against the obstacles, exactly.
func (s *Synthesizer) clear(c *Clip, col *collider) bool {
	id := Affine{R: mgl64.Ident3()}
	for t := range c.Bones {
		col.pos = c.Pose(col.pos, t)
		if col.hits(col.pos, id, s.req.Obstacles, 0) {
			return false
		}
	}
	return true
}

// Clips synthesises the clips of seeds on every core, in order, calling
// done after each.
func (s *Synthesizer) Clips(ctx context.Context, seeds []uint64, done func()) ([]*Clip, error) {
	clips := make([]*Clip, len(seeds))
	errs := make([]error, len(seeds))
	parallel.For(len(seeds), func(i int) {
		clips[i], errs[i] = s.Clip(ctx, seeds[i])
		if done != nil {
			done()
		}
	})
	return clips, errors.Join(errs...)
}

// collider holds one goroutine's scratch for obstacle tests: the posed
// mesh with its BVH, and the positions being placed.
type collider struct {
	posed *Posed
	pos   []mgl64.Vec3
}

func newCollider(m *Model) *collider {
	return &collider{posed: posedMesh(m.Rest, m.Triangles)}
}

// hits reports whether the positions pos placed by the rigid map at come
// within margin of an obstacle.
func (c *collider) hits(pos []mgl64.Vec3, at Affine, obstacles []Obstacle, margin float64) bool {
	p := c.posed
	p.Positions = p.Positions[:0]
	for _, v := range pos {
		p.Positions = append(p.Positions, at.Apply(v))
	}
	p.Mesh.Refit(p.Positions)
	for _, o := range obstacles {
		if o.Hits(p, margin) {
			return true
		}
	}
	return false
}

// Frames returns the length of the clips in frames.
func (s *Synthesizer) Frames() int { return s.req.Frames }

// Window returns the half-width of the blending window in use.
func (s *Synthesizer) Window() int { return s.req.Window }
