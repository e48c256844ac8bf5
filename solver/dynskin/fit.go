package dynskin

import (
	"context"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/parallel"
)

// FitOptions are the settings of Fit.
type FitOptions struct {
	Sim Options
	// Kappa fits the fifth parameter κ; false fits the paper's four (κ
	// held at 0).
	Kappa bool
	// Iterations caps the iterations (0 means DefaultFitIterations).
	Iterations int
	// StepRatio is μ, the fraction of the way each iteration moves towards
	// the per-vertex optima (0 means 0.1; the paper recommends [1/T, 0.1]
	// for T > 10 frames).
	StepRatio float64
	// Tolerance is ε: the fit stops when |Eᵏ − Eᵏ⁻¹| / E⁰ < ε (0 means
	// DefaultFitTolerance).
	Tolerance float64
	// Progress, if not nil, is called after each iteration's simulation
	// with its number k (0 for the starting parameters), Eᵏ and the
	// parameters Πᵏ it simulated (shared; do not keep or modify).
	Progress func(k int, energy float64, params []Material)
}

// Defaults of FitOptions: the iteration cap and ε. E⁰, the puppet's
// error, includes its undamped swing about the goal, many times the
// fitted error, so ε must be small.
const (
	DefaultFitIterations = 200
	DefaultFitTolerance  = 1e-6
)

// FitResult is what Fit found.
type FitResult struct {
	// Params are the best parameters found (least E).
	Params []Material
	// Best is the iteration whose parameters they are; Energy[Best] is
	// their E.
	Best int
	// Energy is E (Eq. 13, summed over every frame and vertex) of each
	// iteration's parameters, from Energy[0] (the starting guess) on.
	Energy []float64
	// Converged reports whether the tolerance stopped the fit (else the
	// cap or the context did).
	Converged bool
	// RMSE is the root mean square distance of Params' simulation from
	// the example over every frame and vertex: √(Energy[Best] / (frames ×
	// vertices)), what Simulate with Params and RMSE against the example
	// would give.
	RMSE float64
}

// RMSE returns the root mean square distance between two animations of
// the same mesh (frames × vertices).
func RMSE(a, b [][]mgl64.Vec3) float64 {
	sum, n := 0.0, 0
	for f := range a {
		for i := range a[f] {
			d := a[f][i].Sub(b[f][i])
			sum += d.Dot(d)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(sum / float64(n))
}

// CheckExample reports what makes example unfit to fit m against goal g:
// another frame count or vertex count, or a non-finite position, naming
// the frame and vertex.
func CheckExample(m *Model, g *Goal, example [][]mgl64.Vec3) error {
	if len(example) != g.NumFrames() {
		return fmt.Errorf("the example has %d frames, the goal %d", len(example), g.NumFrames())
	}
	for f, x := range example {
		if len(x) != m.n {
			return fmt.Errorf("example frame %d has %d vertices, the model %d", f, len(x), m.n)
		}
		for i, p := range x {
			if !finite.Vec3(p) {
				return fmt.Errorf("example frame %d, vertex %d: non-finite position %v", f, i, p)
			}
		}
	}
	return nil
}

// Fit fits the per-vertex parameters so that the model driven by goal g
// follows example (one frame per goal frame), by the iteration of the
// package comment. It uses both cores. The context stops it between
// iterations, returning the best so far with the context's error.
func Fit(ctx context.Context, m *Model, g *Goal, example [][]mgl64.Vec3, opts FitOptions) (*FitResult, error) {
	iters := opts.Iterations
	if iters <= 0 {
		iters = DefaultFitIterations
	}
	mu := opts.StepRatio
	if mu == 0 {
		mu = 0.1
	}
	if !(mu > 0 && mu <= 1) {
		return nil, fmt.Errorf("step ratio μ = %v: want (0, 1]", mu)
	}
	eps := opts.Tolerance
	if eps == 0 {
		eps = DefaultFitTolerance
	}
	nfit := 4
	if opts.Kappa {
		nfit = 5
	}
	p := Uniform(m.n, Puppet)
	s, err := NewSim(m, p, g, opts.Sim) // checks the goal
	if err != nil {
		return nil, err
	}
	if err := CheckExample(m, g, example); err != nil {
		return nil, err
	}
	s.fit = make([]qpSums, m.n) // per slot
	target := make([][]mgl64.Vec3, len(example))
	for f, x := range example {
		target[f] = m.toSlots(x)
	}
	res := &FitResult{Params: append([]Material(nil), p...)}
	star := make([]Material, m.n)
	for k := 0; ; k++ {
		e, err := fitSimulate(s, example, target)
		if err != nil {
			// The update diverged: keep the best.
			return res, fmt.Errorf("iteration %d: %w", k, err)
		}
		res.Energy = append(res.Energy, e)
		if e < res.Energy[res.Best] || k == 0 {
			res.Best = k
			copy(res.Params, p)
			res.RMSE = math.Sqrt(e / float64(m.n*g.NumFrames()))
		}
		if opts.Progress != nil {
			opts.Progress(k, e, p)
		}
		if k > 0 && math.Abs(e-res.Energy[k-1]) < eps*res.Energy[0] {
			res.Converged = true
			return res, nil
		}
		if k >= iters || ctx.Err() != nil {
			return res, ctx.Err()
		}
		parallel.For((m.n+chunk-1)/chunk, func(c int) {
			for k := c * chunk; k < min(m.n, (c+1)*chunk); k++ {
				x := solveQP(&s.fit[k], nfit)
				star[m.perm[k]] = materialOf(&x)
			}
		})
		for i := range p {
			for j := 0; j < nParams; j++ {
				p[i].Set(j, (1-mu)*p[i].Get(j)+mu*star[i].Get(j))
			}
			p[i] = p[i].Clamp() // rounding only
		}
		if err := s.SetParams(p); err != nil {
			return res, err
		}
	}
}

// fitSimulate runs s over its goal, accumulating each slot's
// least-squares sums against the example (target: its frames in the
// model's slots), and returns E, summed in the mesh's order.
func fitSimulate(s *Sim, example, target [][]mgl64.Vec3) (float64, error) {
	clear(s.fit)
	s.Start(0)
	e := sqDist(s.Positions(), example[0])
	for f := 0; f+1 < len(example); f++ {
		s.fitTarget = target[f+1]
		if err := s.Advance(f + 1); err != nil {
			return 0, err
		}
		e += sqDist(s.Positions(), example[f+1])
	}
	return e, nil
}

func sqDist(a, b []mgl64.Vec3) float64 {
	sum := 0.0
	for i := range a {
		d := a[i].Sub(b[i])
		sum += d.Dot(d)
	}
	return sum
}
