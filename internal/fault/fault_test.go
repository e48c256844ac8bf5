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
