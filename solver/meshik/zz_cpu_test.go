//go:build gallopcpu

package meshik

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/deform"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	p := loadPoses(t, "horse-poses", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	ex := p.examples()
	sub := assets.SubdivideMidpoint(p.ref)
	gs, _ := deform.New(sub.Positions, sub.Triangles)
	subEx := make([][]mgl64.Mat3, len(p.poses))
	for i, pose := range p.poses {
		subEx[i] = make([]mgl64.Mat3, gs.NumTriangles())
		gs.Features(subEx[i], assets.SubdivideMidpointPositions(p.ref, pose))
	}
	for _, set := range [][][]mgl64.Mat3{ex, subEx} {
		for _, l := range []int{4, 10} {
			nl, _ := NewNonlinearSpace(set[:l])
			lin, _ := NewLinearSpace(set[:l])
			for _, s := range []Space{nl, lin} {
				w := randomWeights(rand.New(rand.NewPCG(7, 8)), s.NumWeights())
				tt := make([]mgl64.Mat3, s.NumTriangles())
				dt := make([]mgl64.Mat3, s.NumTriangles()*s.NumWeights())
				for _, op := range []string{"Eval", "Jacobian", "EvalJacobian"} {
					f := map[string]func(){"Eval": func() { s.Eval(w, tt) }, "Jacobian": func() { s.Jacobian(w, dt) }, "EvalJacobian": func() { s.EvalJacobian(w, tt, dt) }}[op]
					f()
					const n = 40
					bestWall := time.Hour
					c0 := cpuTime()
					for range n {
						t0 := time.Now()
						f()
						bestWall = min(bestWall, time.Since(t0))
					}
					cpu := (cpuTime() - c0) / n
					fmt.Printf("%-12s %-10T F=%-6d l=%-2d  wall(min) %6.2f ms   cpu %6.2f ms\n", op, s, s.NumTriangles(), l, float64(bestWall.Microseconds())/1000, float64(cpu.Microseconds())/1000)
				}
			}
		}
	}
}
