package meshik

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

// Iterate performs one Gauss-Newton iteration from the current (x, w).
//
// As a safeguard the paper does not need on its examples but larger
// residuals do (left-out poses, far drags), the iteration is
// Levenberg-Marquardt: the weight system is damped, S + μ·diag(S), by a μ
// that the gain ratio ρ = (actual decrease of f) / (decrease the linear
// model predicted) of the previous step steers (Madsen, Nielsen and
// Tingleff 2004, Section 3.2): a step that increased f is undone and
// retaken with μ four times larger; ρ < 1/4 quadruples μ (at least 10⁻³),
// ρ > 3/4 divides it by three down to 0, pure Gauss-Newton, which is where
// a well-behaved solve stays. Without the damping Gauss-Newton can zig-zag
// across a flat valley forever (the lion with pose 7 left out did).
func (s *Solver) Iterate() (Stats, error) {
	if !s.ready {
		return Stats{}, errors.New("meshik: no constraints set (SetHandles)")
	}
	s.holdFixed()
	var turned float64
	for {
		// The rotating groups go to R(w) for the weights of now (after an
		// undone step, back to where they were): the objective is one
		// function of (x, w), its turn included (turnJacobian).
		turned = s.turn()
		bl := s.main
		reuse := s.reusing()
		var sm sums
		var rs reuseSums
		var f float64
		var grad []float64
		if reuse {
			rs = s.reusePrepare(bl)
			f, grad = rs.f, make([]float64, bl.l)
			for k, r := range rs.rhs {
				grad[k] = -2 * r
			}
		} else {
			sm = s.prepare(bl, true, true)
			f, grad = sm.f, sm.grad
		}
		for k, w := range bl.w {
			dw := w - bl.w0[k]
			f += bl.prior[k]*w*w + bl.temporal[k]*dw*dw
			grad[k] += 2*bl.prior[k]*w + 2*bl.temporal[k]*dw
		}
		// Below rounding level (a converged iterate) the ratio is noise.
		if !math.IsNaN(s.prevF) && s.predicted > 1e-12*(1+f) {
			rho := (s.prevF - f) / s.predicted
			s.lastRho = rho
			if reuse && rho >= 0 && rho < reuseRatio {
				// The reused weight system's last step fell short:
				// this iteration forms it anew (reusing is now off).
				continue
			}
			switch {
			case rho < 0 && s.mu >= maxDamping:
				// Even a step damped to nothing makes things worse: the
				// last iterate is a minimum to rounding. Keep it.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.predicted = 0
				return Stats{Iteration: s.iter, Objective: s.prevF, Damping: s.mu, Rotation: turned, Converged: turned < rotationTol}, nil
			case rho < 0 && reuse:
				// A step with the reused weight system made things
				// worse: undo it and take it again with a fresh one.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.predicted = 0
				continue
			case rho < 0:
				// The last step made things worse: undo it and damp.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.mu = max(4*s.mu, 1e-3)
				s.predicted = 0
				continue
			case rho < 0.25:
				s.mu = max(4*s.mu, 1e-3)
			case rho > 0.75:
				if s.mu /= 3; s.mu < 1e-8 {
					s.mu = 0
				}
			}
		}
		if reuse && s.secOK {
			s.secantUpdate(rs.rhs)
		}
		copy(s.prevX, s.x)
		copy(s.prevW, s.main.w)
		lastF := s.prevF
		s.prevF = f
		var delta []float64
		var model float64
		var err error
		if reuse {
			delta, model, err = s.reuseStep(bl, rs, bl.prior, bl.temporal)
			if errors.Is(err, errStale) {
				s.invalidateSystem()
				s.prevF = lastF
				continue
			}
			s.sysAge++
			s.secRHS = append(s.secRHS[:0], rs.rhs...)
			s.secStep = append(s.secStep[:0], delta...)
			s.secOK = true
		} else {
			s.secOK = false
			delta, model, err = s.step(bl, sm, bl.prior, bl.temporal, s.mu)
		}
		if err != nil {
			s.restore()
			return Stats{}, err
		}
		if reuse && f-model <= 1e-12*(1+f) {
			// The linearised problem itself says the step with the kept
			// system does not decrease f (a direction the kept system
			// underrates): undo it and take a full step.
			copy(s.x, s.prevX)
			copy(s.main.w, s.prevW)
			s.invalidateSystem()
			s.prevF = lastF
			continue
		}
		s.predicted = f - model
		s.iter++
		eps := s.opts.epsilon()
		st := Stats{Iteration: s.iter, Objective: f, Damping: s.mu, Rotation: turned}
		wmax := 0.0
		for k := range delta {
			st.Step = max(st.Step, math.Abs(delta[k]))
			st.Gradient = max(st.Gradient, math.Abs(grad[k]))
			wmax = max(wmax, math.Abs(s.prevW[k]))
		}
		st.Converged = !math.IsNaN(lastF) &&
			math.Abs(f-lastF) < eps*(1+f) &&
			st.Gradient < math.Cbrt(eps)*(1+f) &&
			st.Step < math.Sqrt(eps)*(1+wmax) &&
			turned < rotationTol
		if !finiteIterate(s.x, s.main.w) {
			s.restore()
			return st, fmt.Errorf("%w: the step gave positions or weights that are not finite numbers", ErrDiverged)
		}
		if reuse && st.Converged {
			// A reused weight system converges linearly: the last
			// iteration is a full one, whose step ends where the
			// paper's would (unless new targets come first).
			st.Converged = false
			s.confirm = true
		}
		return st, nil
	}
}

// maxDamping is the Marquardt μ past which a step that still increases
// the objective ends the solve at the last iterate.
const maxDamping = 1e8

// ErrIllPosed is returned (wrapped) by Iterate when the weights cannot be
// solved for: more than one blend of the examples fits the handles equally
// well (examples that do not vary where the handles are, uncompressed
// examples that repeat each other, no prior). The iterate is the last one.
var ErrIllPosed = errors.New("meshik: the handles do not determine the example weights")

// ErrDiverged is returned (wrapped) by Iterate when a step leaves the
// numbers' range; the iterate is the last finite one.
var ErrDiverged = errors.New("meshik: the solve diverged")

// holdFixed records the constrained vertices as they are, before prepare
// moves them to new targets: a failed step puts them back (restore), so
// that the pose is the last one solved, not one with its handles torn
// away from it.
func (s *Solver) holdFixed() {
	s.held = s.held[:0]
	for _, v := range s.fixedList {
		s.held = append(s.held, s.x[v])
	}
}

// restore puts the last accepted iterate back after a step that failed,
// its constrained vertices where they were when Iterate began, and
// forgets the damping history and the weight system.
func (s *Solver) restore() {
	s.invalidateSystem()
	copy(s.x, s.prevX)
	copy(s.main.w, s.prevW)
	for i, v := range s.fixedList {
		s.x[v] = s.held[i]
	}
	s.resetConvergence()
}

// finiteIterate reports whether every position and weight is finite.
func finiteIterate(x []mgl64.Vec3, w []float64) bool {
	for _, p := range x {
		if !finite.Vec3(p) {
			return false
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// rotationTol is the largest turn of a rotating group (radians) an
// iteration may make and still count as converged.
const rotationTol = 1e-6

// StartFromLinear replaces the weights with the best blend of the linear
// feature space for the current constraints (a convex problem: one exact
// step from its centre), expressed as nonlinear weights (linearToMain),
// which is where the nonlinear iterations start: the nonlinear
// space agrees with the linear one at the examples and near them, so this
// start lies in the right basin far more often than equal shares do (with
// equal shares the lion's pose 7 stalls in a local minimum). Positions are
// set to the linear solution. It does nothing for other spaces.
func (s *Solver) StartFromLinear() error {
	if s.lin == nil || !s.ready {
		return nil
	}
	s.lin.neutral()
	s.holdFixed()
	copy(s.prevX, s.x)
	copy(s.prevW, s.main.w)
	if _, _, err := s.step(s.lin, s.prepare(s.lin, true, true), s.lin.startPrior(), make([]float64, s.lin.l), 0); err != nil {
		s.restore()
		return err
	}
	if !finiteIterate(s.x, s.lin.w) {
		s.restore()
		return fmt.Errorf("%w: the start from the linear space is not finite", ErrDiverged)
	}
	s.linearToMain()
	s.invalidateSystem()
	s.resetConvergence()
	return nil
}

// Result summarises Solve.
type Result struct {
	Iterations int
	Objective  float64 // at the start of the last iteration
	Converged  bool
}

// Solve iterates until the convergence tests of Section 4.1 hold or the
// iteration cap is reached (then it returns ErrNotConverged, wrapped, with
// the last iterate in place). each, if not nil, is called after every
// iteration (the Pose tool publishes the iterate there) and may stop the
// solve by returning false.
func (s *Solver) Solve(each func(Stats) bool) (Result, error) {
	var res Result
	for res.Iterations < s.opts.maxIterations() {
		st, err := s.Iterate()
		if err != nil {
			return res, err
		}
		res.Iterations++
		res.Objective = st.Objective
		res.Converged = st.Converged
		if each != nil && !each(st) {
			return res, nil
		}
		if st.Converged {
			return res, nil
		}
	}
	return res, fmt.Errorf("%w after %d iterations (objective %.4g)", ErrNotConverged, res.Iterations, res.Objective)
}

// Reconstruct sets the weights to w and solves for the positions that best
// match M(w) with the constrained vertices at their targets (Eq. 3 with a
// prescribed blend: the paper's Figure 3). No weights are updated.
func (s *Solver) Reconstruct(w []float64) error {
	if err := s.SetWeights(w); err != nil {
		return err
	}
	if !s.ready {
		return errors.New("meshik: no constraints set (SetHandles)")
	}
	s.prepare(s.main, true, true)
	s.halfSolve(s.main)
	s.backward(s.main, make([]float64, s.main.l))
	return nil
}
