//go:build !purego

package dynskin

import (
	"github.com/go-gl/mathgl/mgl64"
)

// stepArgs is what stepGroupAVX reads and writes: the first of the
// group's four slots in each array, the step's constants and room for
// the kernel's transposed fields.
type stepArgs struct {
	cur, nxt *node          // the group's nodes in s.cur and s.nxt
	g0, g1   *mgl64.Vec3    // the goal frames s.g0 and s.g1
	r        *[4]ringSums   // the rings' sums
	q        *[4]mgl64.Quat // the rings' rotations
	sp       *[3][4]float64 // the spokes' columns (groupSpokes)
	mean0    *mgl64.Vec3    // the model's mean rest edges
	inv      *float64       // and inverse ring sizes
	p        *Material      // the parameters s.p
	u, un    float64        // s.u, s.un
	h, fps   float64        // s.h, s.fps
	ih, lim2 float64        // 1/h and the squared blow-up distance
	hext     [3]float64     // h² times the external acceleration
	_        float64        //
	//lint:ignore U1000 the kernel's room: step_amd64.s reads and writes it
	tmp [37][4]float64 // the kernel's transposed fields
}

// stepGroupAVX is stepVertex for the four slots of a group at once with
// AVX (step_amd64.s), for a step without the fit's columns and without a
// poke in the group: bitwise stepVertex's nodes in a.nxt, and the lanes
// (bit j for slot j) that stayed in range.
//
//go:noescape
func stepGroupAVX(a *stepArgs) int

// stepConstants sets the step's constants in a, the kernel's arguments
// that a chunk's groups share.
func (s *Sim) stepConstants(a *stepArgs) {
	h := s.h
	lim := BlowUpFactor * s.m.diag
	h2 := h * h
	ext := s.opts.Gravity
	a.u, a.un, a.h, a.fps, a.ih, a.lim2 = s.u, s.un, h, s.fps, s.fps*float64(s.opts.substeps()), lim*lim
	a.hext = [3]float64{h2 * ext[0], h2 * ext[1], h2 * ext[2]}
}

// stepGroup steps the four slots from lo on as stepVertex does, with the
// spokes' columns sp and the rings' sums r and rotations q, when it can
// (AVX, no fit, no poke among them), and returns the slots (bit j for
// slot lo+j) that stayed in range and whether it did. a is the kernel's
// arguments, the step's constants set (stepConstants) and kept by the
// caller from group to group: the group's pointers are set here, and
// its 1 kB of room is not cleared for each group.
func (s *Sim) stepGroup(a *stepArgs, lo int, r *[4]ringSums, q *[4]mgl64.Quat, sp *[3][4]float64, fit bool) (uint, bool) {
	if !useAVX || fit || lo+4 > s.m.n || s.pokeOn && s.pokeSlot >= lo && s.pokeSlot < lo+4 {
		return 0, false
	}
	m := s.m
	a.cur, a.nxt, a.g0, a.g1 = &s.cur.n[lo], &s.nxt.n[lo], &s.g0[lo], &s.g1[lo]
	a.r, a.q, a.sp, a.mean0, a.inv, a.p = r, q, sp, &m.mean0[lo], &m.inv[lo], &s.p[lo]
	_ = s.g0[lo+3]
	_ = s.g1[lo+3]
	return uint(stepGroupAVX(a)), true
}
