package ensemble

// A Program's variables are one integer per group, as package csp solves
// them, in [−V, V] (Program.TauMax returns V). Each value is a pair of an
// offset τ ∈ [−τ_max, τ_max] and a blend length b (BlendLengths), numbered
// so that csp's preference among equal costs, the smaller |value| and
// then the negative, is the pair's: the shorter blend first, then the
// smaller |τ|, then the negative τ. With one blend length a value is its
// τ.
//
// The numbering: a value v has the rank r(v) = 0, 1, 2, 3, 4, … for
// v = 0, −1, 1, −2, 2, …; rank r is blend r / (2τ_max + 1) and offset the
// value of rank r mod (2τ_max + 1). Ranks past the last pair are values
// of no pair (Φ = +Inf).

// rankOf returns the rank of value v: 0 for 0, 2|v| − 1 for v < 0, 2v for
// v > 0.
func rankOf(v int) int {
	switch {
	case v < 0:
		return -2*v - 1
	case v > 0:
		return 2 * v
	}
	return 0
}

// valueOf returns the value of rank r (rankOf's inverse).
func valueOf(r int) int {
	if r%2 == 1 {
		return -(r + 1) / 2
	}
	return r / 2
}

// valueMax returns V: every (τ, blend) pair has a value in [−V, V].
func (m *Model) valueMax() int {
	return m.opts.Blends * (2*m.opts.TauMax + 1) / 2
}

// decodeValue returns the offset and blend length of value v, and false
// for a value of no pair.
func (m *Model) decodeValue(v int) (tau, blend int, ok bool) {
	n := 2*m.opts.TauMax + 1
	r := rankOf(v)
	if r >= m.opts.Blends*n {
		return 0, 0, false
	}
	return valueOf(r % n), (r/n + 1) * m.opts.TauBlend, true
}

// Offsets returns the offsets and blend lengths of a Program's values
// (csp.Result.Tau), blend nil when every group blends over τ_blend. It
// panics on a value of no pair.
func (m *Model) Offsets(values []int) (tau, blend []int) {
	tau = make([]int, len(values))
	long := false
	bl := make([]int, len(values))
	for k, v := range values {
		t, b, ok := m.decodeValue(v)
		if !ok {
			panic("ensemble: a program value of no offset")
		}
		tau[k], bl[k] = t, b
		long = long || b != m.opts.TauBlend
	}
	if long {
		blend = bl
	}
	return tau, blend
}

// Values returns the Program values of offsets tau and blend lengths
// blend (nil: τ_blend for every group). It panics on a blend length the
// model does not use.
func (m *Model) Values(tau, blend []int) []int {
	n := 2*m.opts.TauMax + 1
	out := make([]int, len(tau))
	for k, t := range tau {
		b := m.blendOf(blend, k)
		if b%m.opts.TauBlend != 0 || b/m.opts.TauBlend < 1 || b/m.opts.TauBlend > m.opts.Blends {
			panic("ensemble: a blend length the model does not use")
		}
		out[k] = valueOf((b/m.opts.TauBlend-1)*n + rankOf(t))
	}
	return out
}
