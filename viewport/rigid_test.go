package viewport

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
)

// TestRigidScene: a body moving along x gives items in the body's and the
// part's colours at each frame, a box around every frame, and a camera
// that sees all of it.
func TestRigidScene(t *testing.T) {
	ball := assets.RigidBody{Name: "ball", Mesh: assets.SphereMesh(0.5, 8), Color: [3]float32{1, 0, 0}}
	for f := range 3 {
		ball.Positions = append(ball.Positions, assets.Vec3{float64(2 * f), 1, 0})
		ball.Rotations = append(ball.Rotations, mgl64.QuatIdent())
	}
	a := &assets.RigidAnimation{Name: "roll", FPS: 30, Bodies: []assets.RigidBody{ball},
		Static: []assets.RigidPart{{Name: "floor", Mesh: assets.BoxMesh(assets.Vec3{6, 0.1, 2})}}}
	s, err := NewRigidScene(a)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumFrames() != 3 || len(s.Objects) != 2 {
		t.Fatalf("%d frames, %d objects", s.NumFrames(), len(s.Objects))
	}
	if s.Lo[0] > -3+1e-9 || s.Hi[0] < 4.5-1e-9 {
		t.Errorf("box %v to %v does not hold every frame", s.Lo, s.Hi)
	}
	for f := -1; f <= 3; f++ {
		items := s.Items(f)
		c := items[0].Positions[0].Sub(ball.Mesh.Positions[0])
		want := 2 * float64(max(0, min(f, 2)))
		if c[0] != want {
			t.Errorf("frame %d: the ball is at x = %v, want %v", f, c[0], want)
		}
		if items[0].Colors[0] != ([3]float32{1, 0, 0}) || items[1].Colors[0] != ([3]float32{0.6, 0.6, 0.6}) {
			t.Errorf("colours %v, %v", items[0].Colors[0], items[1].Colors[0])
		}
	}
	strobe := s.Strobe(10)
	if len(strobe) != 3+1 || strobe[0].Positions[0][0] != ball.Mesh.Positions[0][0] || strobe[2].Positions[0][0] != ball.Mesh.Positions[0][0]+4 {
		t.Errorf("a strobe of 3 frames has %d items", len(strobe))
	}
	cam := s.Camera(4.0 / 3)
	for _, p := range []assets.Vec3{s.Lo, s.Hi} {
		if _, ok := cam.Project(p, 4.0/3); !ok {
			t.Errorf("the camera does not see %v", p)
		}
	}
	if _, err := NewRigidScene(&assets.RigidAnimation{FPS: 30}); err == nil {
		t.Error("an animation without bodies was accepted")
	}
}
