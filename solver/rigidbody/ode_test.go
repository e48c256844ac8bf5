package rigidbody

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

var gravity = mgl64.Vec3{0, -9.81, 0}

// TestFreeFall checks the integrator against its closed form: ODE's
// semi-implicit Euler gives y_n = y_0 − g·dt²·n(n+1)/2.
func TestFreeFall(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	w.SetTimeStep(0.01)
	b := w.NewBody()
	b.SetMass(Sphere{Radius: 0.1}.Mass(1000))
	b.SetPosition(mgl64.Vec3{0, 10, 0})
	for n := 1; n <= 100; n++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		want := 10 - 9.81*0.01*0.01*float64(n*(n+1))/2
		if got := b.Position()[1]; math.Abs(got-want) > 1e-9 {
			t.Fatalf("step %d: y = %.12f, want %.12f", n, got, want)
		}
	}
}

// TestRestOnPlane drops a ball on a plane: it comes to rest at one radius
// above it and the at-rest test ends the simulation.
func TestRestOnPlane(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	w.SetTimeStep(0.005)
	w.NewPlane(mgl64.Vec3{0, 1, 0}, 0, Surface{Friction: 1})
	b := w.NewBody()
	b.SetMass(Sphere{Radius: 0.25}.Mass(500))
	b.AddGeom(Sphere{Radius: 0.25}, mgl64.Vec3{}, mgl64.Quat{}, Surface{Friction: 1})
	b.SetPosition(mgl64.Vec3{0, 1, 0})
	steps := 0
	for ; steps < 2000 && !w.AllAtRest(); steps++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if !w.AllAtRest() {
		t.Fatalf("not at rest after %d steps", steps)
	}
	if y := b.Position()[1]; math.Abs(y-0.25) > 2e-3 {
		t.Errorf("rests at y = %.4f, want 0.25", y)
	}
	if steps > 600 {
		t.Errorf("took %d steps to come to rest", steps)
	}
	if !b.AtRest() {
		t.Error("body not at rest while the world is")
	}
	b.SetLinearVel(mgl64.Vec3{1, 0, 0})
	if b.AtRest() || w.AllAtRest() {
		t.Error("setting a velocity did not clear the at-rest state")
	}
}

// TestBounce checks restitution: a ball dropped from height h with
// restitution e rises to about e²·h.
func TestBounce(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	w.SetTimeStep(0.0005)
	w.NewPlane(mgl64.Vec3{0, 1, 0}, 0, Surface{Bounce: 0.5})
	b := w.NewBody()
	b.SetMass(Sphere{Radius: 0.1}.Mass(1000))
	b.AddGeom(Sphere{Radius: 0.1}, mgl64.Vec3{}, mgl64.Quat{}, Surface{Bounce: 0.5})
	b.SetPosition(mgl64.Vec3{0, 1.1, 0})
	bounced, peak := false, 0.0
	for i := 0; i < 4000; i++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		vy := b.LinearVel()[1]
		if vy > 0 {
			bounced = true
		}
		if bounced {
			peak = math.Max(peak, b.Position()[1]-0.1)
			if vy < 0 {
				break
			}
		}
	}
	if math.Abs(peak-0.25) > 0.02 {
		t.Errorf("bounced to %.3f m, want about 0.25 (e² of 1 m)", peak)
	}
}

// TestCompound checks a compound body's mass, centre and model frame.
func TestCompound(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	s := Sphere{Radius: 0.1}
	b, err := w.NewCompound([]Part{
		{Shape: s, Pos: mgl64.Vec3{0, 0, 0}, Density: 1000},
		{Shape: s, Pos: mgl64.Vec3{0, 1, 0}, Density: 3000},
	}, 0, Surface{})
	if err != nil {
		t.Fatal(err)
	}
	m1 := s.Mass(1000).Total
	if got := b.Mass().Total; math.Abs(got-4*m1) > 1e-9 {
		t.Errorf("mass %g, want %g", got, 4*m1)
	}
	// Centre of mass at y = 0.75 in the model frame.
	if off := b.ModelOffset(); off.Sub(mgl64.Vec3{0, -0.75, 0}).Len() > 1e-12 {
		t.Errorf("model offset %v, want (0, -0.75, 0)", off)
	}
	rot := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1})
	b.SetModelPose(mgl64.Vec3{2, 0, 0}, rot)
	// The model's y axis now points along −x: the centre is at (1.25, 0, 0).
	if p := b.Position(); p.Sub(mgl64.Vec3{1.25, 0, 0}).Len() > 1e-12 {
		t.Errorf("centre at %v, want (1.25, 0, 0)", p)
	}
	if p := b.Pose().Transform(b.ModelOffset()); p.Sub(mgl64.Vec3{2, 0, 0}).Len() > 1e-12 {
		t.Errorf("model origin at %v, want (2, 0, 0)", p)
	}
	if _, err := w.NewCompound(nil, 0, Surface{}); err == nil {
		t.Error("no parts: no error")
	}
	if _, err := w.NewCompound([]Part{{Shape: s, Density: -1}}, 0, Surface{}); err == nil {
		t.Error("negative density: no error")
	}
}

// TestHeightfieldAndTriMesh rests balls on a sloped height field and on a
// triangle-mesh floor; each stops on the surface.
func TestHeightfieldAndTriMesh(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	w.SetTimeStep(0.005)
	hf := &Heightfield{Nx: 5, Nz: 5, SizeX: 4, SizeZ: 4, Thickness: 1, Center: mgl64.Vec3{0, 0, 0}}
	hf.Heights = make([]float64, 25)
	for k := range hf.Heights {
		hf.Heights[k] = 0.3 // flat at 0.3
	}
	if _, err := w.NewHeightfield(hf, Surface{Friction: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	floor := []mgl64.Vec3{{4, 0.5, -2}, {8, 0.5, -2}, {8, 0.5, 2}, {4, 0.5, 2}}
	if _, err := w.NewTriMesh(floor, [][3]uint32{{0, 2, 1}, {0, 3, 2}}, Surface{Friction: 1}); err != nil {
		t.Fatal(err)
	}
	ball := func(x float64) *Body {
		b := w.NewBody()
		b.SetMass(Sphere{Radius: 0.2}.Mass(1000))
		b.AddGeom(Sphere{Radius: 0.2}, mgl64.Vec3{}, mgl64.Quat{}, Surface{Friction: 1})
		b.SetPosition(mgl64.Vec3{x, 2, 0.3})
		return b
	}
	a, b := ball(0.4), ball(6)
	for i := 0; i < 3000 && !w.AllAtRest(); i++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if !w.AllAtRest() {
		t.Fatal("balls never came to rest")
	}
	if y := a.Position()[1]; math.Abs(y-0.5) > 5e-3 {
		t.Errorf("ball on the height field at y = %.4f, want 0.5", y)
	}
	if y := b.Position()[1]; math.Abs(y-0.7) > 5e-3 {
		t.Errorf("ball on the triangle mesh at y = %.4f, want 0.7", y)
	}
}

// TestSurfaceField slides two boxes on a plane whose friction field is
// low on one side and high on the other: the box on the rough side stops
// much sooner.
func TestSurfaceField(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	w.SetTimeStep(0.002)
	g := w.NewPlane(mgl64.Vec3{0, 1, 0}, 0, Surface{Friction: 1})
	f := &SurfaceField{Nx: 2, Nz: 2, X0: -10, Z0: -1, DX: 20, DZ: 2,
		Friction: []float64{0.05, 0.05, 0.05, 0.05}, Bounce: []float64{0, 0, 0, 0}}
	f.Friction[2], f.Friction[3] = 1, 1 // z = +1 row: rough
	if err := g.SetSurfaceField(f); err != nil {
		t.Fatal(err)
	}
	box := func(z float64) *Body {
		b := w.NewBody()
		b.SetMass(Box{Size: mgl64.Vec3{0.2, 0.2, 0.2}}.Mass(500))
		b.AddGeom(Box{Size: mgl64.Vec3{0.2, 0.2, 0.2}}, mgl64.Vec3{}, mgl64.Quat{}, Surface{Friction: 1})
		b.SetPosition(mgl64.Vec3{0, 0.1, z})
		b.SetLinearVel(mgl64.Vec3{2, 0, 0})
		return b
	}
	slick, rough := box(-1), box(1)
	for i := 0; i < 1000; i++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	ds, dr := slick.Position()[0], rough.Position()[0]
	// The box's μ = 1 combines with the field's by the geometric mean:
	// 0.22 on the slick side, 1 on the rough one. Sliding distance
	// v²/(2μg): 0.91 m and 0.20 m.
	if math.Abs(ds-0.91) > 0.2 || math.Abs(dr-0.2) > 0.05 {
		t.Errorf("slid %.2f m on the slick side and %.2f m on the rough side; want about 0.91 and 0.20", ds, dr)
	}
	bad := *f
	bad.Bounce = []float64{0, 2, 0, 0}
	if err := g.SetSurfaceField(&bad); err == nil {
		t.Error("bounce 2 accepted")
	}
}

func TestBadGeometry(t *testing.T) {
	w := NewWorld(gravity)
	defer w.Close()
	v := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}
	for _, c := range []struct {
		name string
		v    []mgl64.Vec3
		t    [][3]uint32
	}{
		{"empty", nil, nil},
		{"index out of range", v, [][3]uint32{{0, 1, 3}}},
		{"repeated vertex", v, [][3]uint32{{0, 1, 1}}},
		{"NaN vertex", []mgl64.Vec3{{0, math.NaN(), 0}, {1, 0, 0}, {0, 0, 1}}, [][3]uint32{{0, 1, 2}}},
	} {
		if _, err := w.NewTriMesh(c.v, c.t, Surface{}); err == nil {
			t.Errorf("trimesh %s: no error", c.name)
		}
	}
	if _, err := w.NewHeightfield(&Heightfield{Nx: 2, Nz: 2, SizeX: 1, SizeZ: 1, Thickness: 1, Heights: []float64{0, 0, 0}}, Surface{}); err == nil {
		t.Error("heightfield with 3 heights for 2 × 2: no error")
	}
	if _, err := w.NewHeightfield(&Heightfield{Nx: 2, Nz: 2, SizeX: 1, SizeZ: 1, Thickness: 1, Heights: []float64{0, 0, math.Inf(1), 0}}, Surface{}); err == nil {
		t.Error("heightfield with an infinite height: no error")
	}
}

// scene builds a world with every kind of shape and static geometry, many
// contacts and stacked bodies: the determinism test's workload.
func scene(quick bool) *World {
	w := NewWorld(gravity)
	w.SetTimeStep(1.0 / 240)
	if quick {
		w.SetStepper(StepQuick, 20)
		w.SetSeed(7)
	}
	w.SetContactSurfaceLayer(0.001)
	hf := &Heightfield{Nx: 9, Nz: 9, SizeX: 4, SizeZ: 4, Thickness: 1, Center: mgl64.Vec3{-3, 0, 0}}
	hf.Heights = make([]float64, 81)
	for k := range hf.Heights {
		i, j := k%9, k/9
		hf.Heights[k] = 0.2 * math.Sin(float64(i)) * math.Cos(float64(j))
	}
	g, err := w.NewHeightfield(hf, Surface{Friction: 0.8, Bounce: 0.3, BounceVel: 0.1})
	if err != nil {
		panic(err)
	}
	f := &SurfaceField{Nx: 3, Nz: 3, X0: -5, Z0: -2, DX: 2, DZ: 2,
		Friction: []float64{0.2, 0.5, 0.9, 0.4, 0.6, 0.1, 0.3, 0.8, 0.7}, Bounce: []float64{0.1, 0.5, 0.2, 0.6, 0.3, 0.4, 0.0, 0.2, 0.9}}
	if err := g.SetSurfaceField(f); err != nil {
		panic(err)
	}
	floor := []mgl64.Vec3{{0, 0, -3}, {6, 0.3, -3}, {6, 0.3, 3}, {0, 0, 3}, {3, 0.5, 0}}
	if _, err := w.NewTriMesh(floor, [][3]uint32{{0, 4, 1}, {1, 4, 2}, {2, 4, 3}, {3, 4, 0}}, Surface{Friction: 0.6, Bounce: 0.2}); err != nil {
		panic(err)
	}
	w.NewPlane(mgl64.Vec3{0, 1, 0}, -0.5, Surface{Friction: 1})
	w.NewStatic(Box{Size: mgl64.Vec3{0.2, 1, 6}}, mgl64.Vec3{6.1, 0.5, 0}, mgl64.Quat{}, Surface{Friction: 0.3, Bounce: 0.5})
	shapes := []Shape{Sphere{0.15}, Box{mgl64.Vec3{0.3, 0.2, 0.25}}, Capsule{0.1, 0.3}, Cylinder{0.12, 0.25}}
	for i := 0; i < 24; i++ {
		s := shapes[i%4]
		b, err := w.NewCompound([]Part{{Shape: s, Density: 700 + 50*float64(i)}, {Shape: Sphere{0.05}, Pos: mgl64.Vec3{0.1, 0, 0}, Density: 2000}}, 0,
			Surface{Friction: 0.5, Bounce: 0.2, BounceVel: 0.2})
		if err != nil {
			panic(err)
		}
		x := -4.5 + 9*float64(i%8)/7
		b.SetModelPose(mgl64.Vec3{x, 1 + 0.4*float64(i/8), 0.3 * float64(i%3-1)},
			mgl64.QuatRotate(0.3*float64(i), mgl64.Vec3{1, 0.5, 0.2}.Normalize()))
		b.SetLinearVel(mgl64.Vec3{0.5 * float64(i%5-2), 0, 0.3 * float64(i%3-1)})
		b.SetAngularVel(mgl64.Vec3{0, float64(i%4) - 1.5, 0})
	}
	return w
}

// trajectoryHash steps the scene and hashes every pose of every step
// bitwise.
func trajectoryHash(quick bool, steps int) ([32]byte, int) {
	w := scene(quick)
	defer w.Close()
	h := sha256.New()
	var poses []Pose
	contacts := 0
	for i := 0; i < steps; i++ {
		if err := w.Step(); err != nil {
			panic(err)
		}
		contacts += w.Contacts()
		poses = w.AppendPoses(poses[:0])
		binary.Write(h, binary.LittleEndian, unsafe.Slice((*float64)(unsafe.Pointer(&poses[0])), 7*len(poses)))
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, contacts
}

// TestDeterminism checks that the same world gives bitwise the same
// trajectory: twice in a row, on four goroutines at once (which ODE's
// shared state would otherwise disturb), and in another process.
func TestDeterminism(t *testing.T) {
	if env := os.Getenv("GALLOP_ODE_HASH"); env != "" {
		sum, _ := trajectoryHash(env == "quick", 600)
		fmt.Printf("hash %x\n", sum)
		return
	}
	for _, quick := range []bool{false, true} {
		name := "direct"
		if quick {
			name = "quick"
		}
		t.Run(name, func(t *testing.T) {
			want, contacts := trajectoryHash(quick, 600)
			if contacts < 1000 {
				t.Fatalf("only %d contacts: the scene does not exercise collisions", contacts)
			}
			if again, _ := trajectoryHash(quick, 600); again != want {
				t.Fatal("second run differs")
			}
			var wg sync.WaitGroup
			got := make([][32]byte, 4)
			for g := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					got[g], _ = trajectoryHash(quick, 600)
				}()
			}
			wg.Wait()
			for g, h := range got {
				if h != want {
					t.Errorf("goroutine %d differs from the sequential run", g)
				}
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeterminism$")
			cmd.Env = append(os.Environ(), "GALLOP_ODE_HASH="+name)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("subprocess: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), fmt.Sprintf("hash %x", want)) {
				t.Errorf("another process gave a different trajectory:\n%s", out)
			}
		})
	}
}

func TestConfiguration(t *testing.T) {
	c := Configuration()
	for _, want := range []string{"ODE_double_precision", "ODE_EXT_trimesh"} {
		if !strings.Contains(c, want) {
			t.Errorf("configuration %q lacks %s", c, want)
		}
	}
}

// BenchmarkScene measures a step of the determinism scene (24 bodies, a
// height field, a triangle mesh, a plane and a box).
func BenchmarkScene(b *testing.B) {
	for _, quick := range []bool{false, true} {
		name := "direct"
		if quick {
			name = "quick20"
		}
		b.Run(name, func(b *testing.B) {
			w := scene(quick)
			defer w.Close()
			for i := 0; i < 240; i++ {
				w.Step()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPoseLayout: the layout check accepts exactly the layout the C side
// writes, seven float64s, and refuses a struct one byte or one field
// larger (the earlier check accepted any size from 56 to 111 bytes).
func TestPoseLayout(t *testing.T) {
	var p Pose
	if err := poseLayoutError(unsafe.Sizeof(p), unsafe.Offsetof(p.Pos), unsafe.Offsetof(p.Rot)+unsafe.Offsetof(p.Rot.W), unsafe.Offsetof(p.Rot)+unsafe.Offsetof(p.Rot.V)); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][4]uintptr{{64, 0, 24, 32}, {57, 0, 24, 32}, {56, 0, 48, 24}, {56, 8, 24, 32}} {
		if poseLayoutError(c[0], c[1], c[2], c[3]) == nil {
			t.Errorf("layout %v accepted", c)
		}
	}
}

// TestWorldAliveDuringCalls steps many worlds reachable only from the
// call in progress while the collector runs all the time: a world freed by
// its cleanup in the middle of a C call would crash or corrupt the step.
// (The collector cannot be made to run at one exact instant, so this test
// can only catch a missing runtime.KeepAlive by chance; every method keeps
// its receiver alive across its C calls.)
func TestWorldAliveDuringCalls(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	for i := range 300 {
		b := NewWorld(mgl64.Vec3{0, -9.81, 0}).NewBody()
		b.SetMass(Sphere{Radius: 0.1}.Mass(1000))
		b.SetPosition(mgl64.Vec3{0, float64(i), 0})
		if err := b.World().Step(); err != nil {
			t.Fatal(err)
		}
		if p := b.Position(); !(p[1] < float64(i)) {
			t.Fatalf("world %d: the body did not fall: %v", i, p)
		}
	}
	close(stop)
	<-done
}
