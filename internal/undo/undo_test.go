package undo

import (
	"fmt"
	"testing"
)

// set is a command that changes an int.
type set struct {
	v         *int
	old, new_ int
	merge     bool
}

func (c *set) Name() string { return fmt.Sprintf("set %d", c.new_) }
func (c *set) Do()          { *c.v = c.new_ }
func (c *set) Undo()        { *c.v = c.old }
func (c *set) Merge(next Command) bool {
	n, ok := next.(*set)
	if !ok || !c.merge || !n.merge || n.v != c.v {
		return false
	}
	c.new_ = n.new_
	return true
}

func TestUndoRedo(t *testing.T) {
	var s Stack
	x := 0
	for i := 1; i <= 3; i++ {
		s.Do(&set{v: &x, old: x, new_: i})
	}
	if x != 3 || !s.Dirty() {
		t.Fatalf("x = %d dirty=%v", x, s.Dirty())
	}
	s.Undo()
	s.Undo()
	if x != 1 {
		t.Fatalf("after 2 undos x = %d, want 1", x)
	}
	if s.RedoName() != "set 2" {
		t.Fatalf("RedoName = %q", s.RedoName())
	}
	s.Redo()
	if x != 2 {
		t.Fatalf("after redo x = %d, want 2", x)
	}
	s.Do(&set{v: &x, old: x, new_: 9})
	if s.CanRedo() {
		t.Fatal("redo list survived a new command")
	}
	s.Undo()
	s.Undo()
	s.Undo()
	if x != 0 || s.CanUndo() || s.Dirty() {
		t.Fatalf("x=%d canUndo=%v dirty=%v", x, s.CanUndo(), s.Dirty())
	}
	s.Undo() // no-op
}

func TestDirtyTracksSavePoint(t *testing.T) {
	var s Stack
	x := 0
	s.Do(&set{v: &x, old: 0, new_: 1})
	s.MarkSaved()
	if s.Dirty() {
		t.Fatal("dirty right after save")
	}
	s.Do(&set{v: &x, old: 1, new_: 2})
	if !s.Dirty() {
		t.Fatal("not dirty after edit")
	}
	s.Undo()
	if s.Dirty() {
		t.Fatal("dirty after undoing back to the save point")
	}
	s.Undo()
	if !s.Dirty() {
		t.Fatal("not dirty after undoing past the save point")
	}
	s.Redo()
	if s.Dirty() {
		t.Fatal("dirty after redoing to the save point")
	}
	// Saved state in the redo list becomes unreachable after a new edit.
	s.Undo()
	s.Do(&set{v: &x, old: 0, new_: 5})
	s.Undo()
	if !s.Dirty() {
		t.Fatal("save point should be unreachable once its branch is discarded")
	}
}

func TestMergeIsOneStep(t *testing.T) {
	var s Stack
	x := 0
	for i := 1; i <= 10; i++ {
		s.Do(&set{v: &x, old: x, new_: i, merge: true})
	}
	s.Undo()
	if x != 0 || s.CanUndo() {
		t.Fatalf("merged drags are not one step: x=%d", x)
	}
}

func TestMergeDoesNotCrossSavePoint(t *testing.T) {
	var s Stack
	x := 0
	s.Do(&set{v: &x, old: 0, new_: 1, merge: true})
	s.MarkSaved()
	s.Do(&set{v: &x, old: 1, new_: 2, merge: true})
	if !s.Dirty() {
		t.Fatal("a merged edit after saving must make the document dirty")
	}
	s.Undo()
	if x != 1 {
		t.Fatalf("x = %d, want the saved value 1", x)
	}
}

func TestLimit(t *testing.T) {
	s := Stack{Limit: 4}
	x := 0
	s.MarkSaved()
	for i := 1; i <= 10; i++ {
		s.Do(&set{v: &x, old: x, new_: i})
	}
	n := 0
	for s.CanUndo() {
		s.Undo()
		n++
	}
	if n != 4 || x != 6 {
		t.Fatalf("undid %d steps to x=%d, want 4 steps to 6", n, x)
	}
	if !s.Dirty() {
		t.Fatal("state 6 is not the saved state 0")
	}
}

func TestMarkSavedAtEarlierPosition(t *testing.T) {
	var s Stack
	x := 0
	s.Do(&set{v: &x, old: 0, new_: 1})
	pos := s.Position() // a background save starts here
	s.Do(&set{v: &x, old: 1, new_: 2})
	s.MarkSavedAt(pos) // ... and finishes after the second edit
	if !s.Dirty() {
		t.Fatal("the edit made during the save must stay unsaved")
	}
	s.Undo()
	if s.Dirty() {
		t.Fatal("undoing to the saved state should be clean")
	}
}
