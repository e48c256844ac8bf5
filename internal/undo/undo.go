// Package undo keeps a document's edit history as a stack of commands.
//
// Every edit of the document is a Command that can apply and revert itself.
// Stack.Do applies a command and records it; Undo and Redo walk the history.
// The stack also remembers where the document was last saved, so Dirty
// tells whether there are unsaved changes even after undoing past the save.
//
// Like package jobs, this package imports nothing of Gallop's but the
// fault injector (every edit passes Stack.Do, the "edit" site).
package undo

import "gallop/internal/fault"

// Command is one reversible edit. Do and Undo must be exact inverses of each
// other on the state the command was created for.
type Command interface {
	// Name is shown in the Edit menu ("Undo Select 12 vertices").
	Name() string
	Do()
	Undo()
}

// Merger is implemented by commands that can absorb a following command of
// the same kind into one history step (a slider dragged through many
// values is one undo step).
type Merger interface {
	// Merge reports whether next was folded into the receiver; next has
	// already been applied when Merge is called.
	Merge(next Command) bool
}

// DefaultLimit is the number of steps a Stack keeps when Limit is zero.
const DefaultLimit = 256

// Stack is an undo/redo history. The zero value is empty and ready to use.
type Stack struct {
	// Limit bounds the number of undoable steps; 0 means DefaultLimit.
	Limit int

	done   []Command
	undone []Command
	// saved is the length of done when the document was last saved, or -1
	// if that state is no longer reachable.
	saved int
	// dropped counts commands discarded from the bottom by Limit, so saved
	// stays comparable.
	dropped int
}

// Do applies cmd and pushes it on the history, clearing the redo list. If
// the previous command merges cmd, the two become one step.
func (s *Stack) Do(cmd Command) {
	fault.At("edit")
	cmd.Do()
	p := len(s.done) + s.dropped
	if s.saved > p {
		// The saved state was in the redo list, which is now discarded.
		s.saved = -1
	}
	clear(s.undone)
	s.undone = s.undone[:0]
	if n := len(s.done); n > 0 && s.saved != p {
		if m, ok := s.done[n-1].(Merger); ok && m.Merge(cmd) {
			return
		}
	}
	s.done = append(s.done, cmd)
	limit := s.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(s.done) > limit {
		k := len(s.done) - limit
		s.done = append(s.done[:0], s.done[k:]...)
		s.dropped += k
	}
}

// CanUndo reports whether there is a step to undo.
func (s *Stack) CanUndo() bool { return len(s.done) > 0 }

// CanRedo reports whether there is a step to redo.
func (s *Stack) CanRedo() bool { return len(s.undone) > 0 }

// UndoName returns the name of the step Undo would revert, or "".
func (s *Stack) UndoName() string {
	if len(s.done) == 0 {
		return ""
	}
	return s.done[len(s.done)-1].Name()
}

// RedoName returns the name of the step Redo would apply, or "".
func (s *Stack) RedoName() string {
	if len(s.undone) == 0 {
		return ""
	}
	return s.undone[len(s.undone)-1].Name()
}

// Undo reverts the last step; it does nothing when there is none.
func (s *Stack) Undo() {
	if len(s.done) == 0 {
		return
	}
	c := s.done[len(s.done)-1]
	s.done = s.done[:len(s.done)-1]
	c.Undo()
	s.undone = append(s.undone, c)
}

// Redo re-applies the last undone step; it does nothing when there is none.
func (s *Stack) Redo() {
	if len(s.undone) == 0 {
		return
	}
	c := s.undone[len(s.undone)-1]
	s.undone = s.undone[:len(s.undone)-1]
	c.Do()
	s.done = append(s.done, c)
}

// MarkSaved records the current state as the saved one.
func (s *Stack) MarkSaved() { s.saved = s.Position() }

// Position identifies the current state of the history, for MarkSavedAt.
func (s *Stack) Position() int { return len(s.done) + s.dropped }

// MarkSavedAt records the state at an earlier Position as the saved one:
// a save that runs in the background saves the document as it was when it
// started, and edits made meanwhile stay unsaved.
func (s *Stack) MarkSavedAt(pos int) { s.saved = pos }

// Dirty reports whether the document differs from the last saved state
// (or, if never saved, from the state the stack started in).
func (s *Stack) Dirty() bool { return s.saved != len(s.done)+s.dropped }

// Clear empties the history and marks the current state as saved, for a
// newly opened document.
func (s *Stack) Clear() {
	*s = Stack{Limit: s.Limit}
}
