package fault

import "testing"

func TestAtPanicsOnceAtItsSite(t *testing.T) {
	Arm("edit")
	At("export") // another site: nothing
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		At("edit")
		return false
	}
	if !panicked() {
		t.Fatal("the armed site did not panic")
	}
	if panicked() {
		t.Fatal("the site panicked a second time")
	}
}

func TestStarPanicsEveryTime(t *testing.T) {
	Arm("solve*")
	defer Arm("")
	for i := 0; i < 3; i++ {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("reach %d of the site did not panic", i+1)
				}
			}()
			At("solve")
		}()
	}
}
