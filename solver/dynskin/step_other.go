//go:build !amd64 || purego

package dynskin

import "github.com/go-gl/mathgl/mgl64"

// stepArgs is the amd64 kernel's arguments, which this platform has not.
type stepArgs struct{}

// stepConstants has nothing to set.
func (s *Sim) stepConstants(a *stepArgs) {}

// stepGroup reports that the platform has no kernel for a group's step:
// stepVertex steps each slot.
func (s *Sim) stepGroup(a *stepArgs, lo int, r *[4]ringSums, q *[4]mgl64.Quat, sp *[3][4]float64, fit bool) (uint, bool) {
	return 0, false
}
