package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/panels"
)

// DefaultAutosave is how often the open document is autosaved while it has
// unsaved changes (Blender's default too).
const DefaultAutosave = 2 * time.Minute

// autosaver keeps this session's recovery file: every interval, while the
// document has unsaved changes that differ from the last autosave, the
// whole project (scene, view, tools' state) is written to
// autosave-ID.gallop in the user's cache folder (gallop/autosave), through
// the same atomic writer as Save, so a file on disk is always a whole
// project. The session holds an advisory lock (flock) on autosave-ID.lock
// while it runs; the kernel drops it when the process dies however it
// dies, so at the next start a recovery file whose lock is free belongs to
// a session that ended without a clean exit, and "Recover Last Session"
// offers the newest of them. A clean exit removes the session's files
// (and a dead session's file the artist declined to recover); saving the
// document removes the recovery file (the project is the newer copy).
//
// Every write, removal and rename of the recovery file happens under io,
// in the order of the snapshots: each snapshot is numbered (seq, on the UI
// thread), a write lands only if no later snapshot, removal or recovery
// came first (floor, onDisk), so a background write still in flight can
// never bring back a file a save removed, overwrite a recovered session,
// or put an older state over the one written after a caught panic.
type autosaver struct {
	dir   string
	id    string // this session's: pid and start time
	every time.Duration
	lock  *os.File

	last     time.Time // the last autosave began
	wrote    stamp     // what it held
	orphan   string    // the newest recovery file of a session that died, "" none
	declined bool      // the artist chose Not Now for orphan
	seq      uint64    // snapshots numbered so far (UI thread)

	io     sync.Mutex
	floor  uint64 // under io: snapshots up to it are not written (a removal or recovery came later)
	onDisk uint64 // under io: the snapshot the file holds

	mu       sync.Mutex
	results  []error // autosaves finished since the last poll
	inFlight bool

	wake func() // asks the window for a frame when a write ends; nil for none
}

// stamp tells snapshots apart for autosave (see stampOf).
type stamp struct {
	doc   *Document
	pos   int
	frame int
	state uint64
}

// recoveryOrigin is what a recovery file remembers of its document, kept
// in the project's settings under "autosave".
type recoveryOrigin struct {
	Path  string    `json:"path,omitempty"`
	Title string    `json:"title,omitempty"`
	Saved time.Time `json:"saved"`
}

// newAutosaver opens the recovery folder under cache, takes this session's
// lock and finds the recovery file of a session that died, if any. every
// ≤ 0 turns autosave off (nil).
func newAutosaver(cache string, every time.Duration) (*autosaver, error) {
	if every <= 0 {
		return nil, nil
	}
	dir := filepath.Join(cache, "gallop", "autosave")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &autosaver{dir: dir, every: every, id: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()), last: time.Now()}
	s.orphan = newestOrphan(dir)
	lock, err := os.OpenFile(lockOf(s.path()), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("locking %s: %w", lock.Name(), err)
	}
	s.lock = lock
	return s, nil
}

func (s *autosaver) path() string { return filepath.Join(s.dir, "autosave-"+s.id+assets.ProjectExt) }

// newestOrphan returns the newest recovery file in dir whose session's
// lock is free (the session is gone), "" when there is none.
func newestOrphan(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "autosave-*"+assets.ProjectExt))
	type cand struct {
		path string
		at   time.Time
	}
	var cands []cand
	for _, f := range files {
		if held(lockOf(f)) {
			continue
		}
		if st, err := os.Stat(f); err == nil {
			cands = append(cands, cand{f, st.ModTime()})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].at.After(cands[j].at) })
	return cands[0].path
}

// held reports whether a running session holds the lock file at path.
func held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false // no lock file: its session is gone
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// tick runs once a frame: reports finished autosaves and starts one when
// the interval has passed and the document has unsaved changes it has
// not written yet. A saved document's recovery file is removed.
func (s *autosaver) tick(a *App) {
	s.mu.Lock()
	results := s.results
	s.results = nil
	s.mu.Unlock()
	for _, err := range results {
		if err != nil {
			a.fail(fmt.Errorf("autosave to %s failed: %w (your work is not lost; save it)", s.path(), err))
		}
	}
	if !a.dirty() {
		if s.wrote.doc != nil {
			s.remove()
			s.wrote = stamp{}
		}
		return
	}
	if time.Since(s.last) < s.every || a.loading > 0 {
		return
	}
	s.last = time.Now()
	if err := s.start(a); err != nil {
		a.fail(fmt.Errorf("autosave: %w", err))
	}
}

// stampOf tells what p holds apart from other snapshots of the session:
// the document, where its undo history stood, and a hash of the view's
// and the tools' state (a solver that went on converging after the last
// edit changes the pose the project keeps, not the history).
func stampOf(a *App, p *assets.Project) stamp {
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(p.Settings)) {
		h.Write([]byte(k))
		h.Write(p.Settings[k])
	}
	for _, k := range slices.Sorted(maps.Keys(p.Tools)) {
		h.Write([]byte(k))
		h.Write(p.Tools[k])
	}
	return stamp{doc: a.doc, pos: a.history.Position(), frame: p.Frame, state: h.Sum64()}
}

// start takes the project's snapshot (on the UI thread) and, unless it is
// what the last autosave wrote, writes it on its own goroutine; its result
// reaches the next tick.
func (s *autosaver) start(a *App) error {
	s.mu.Lock()
	busy := s.inFlight
	s.mu.Unlock()
	if busy {
		return nil
	}
	p, err := a.projectSnapshot()
	if err != nil {
		return err
	}
	st := stampOf(a, p)
	if st == s.wrote {
		return nil
	}
	if err := s.mark(a, p); err != nil {
		return err
	}
	s.mu.Lock()
	s.inFlight = true
	s.mu.Unlock()
	s.wrote = st
	s.seq++
	seq := s.seq
	go func() {
		err := safely(func() error { return s.put(p, seq) })
		s.mu.Lock()
		s.inFlight = false
		s.results = append(s.results, err)
		s.mu.Unlock()
		if s.wake != nil {
			s.wake()
		}
		if err == nil && panels.Trace {
			fmt.Printf("autosaved %s\n", s.path())
		}
	}()
	return nil
}

// now writes the recovery file at once, waiting for it (after a caught
// panic, when the next frame may not come), and reports whether it did: a
// document without unsaved changes has nothing to recover. A panic while
// it snapshots or writes (the bug that was caught may be in a tool's
// state) is its error, and so is a snapshot that is not a project Gallop
// would read back (the state the bug left): the last good recovery file
// stays.
func (s *autosaver) now(a *App) (wrote bool, err error) {
	if !a.dirty() {
		return false, nil
	}
	err = safely(func() error { return s.write(a) })
	return err == nil, err
}

func (s *autosaver) write(a *App) error {
	p, err := a.projectSnapshot()
	if err != nil {
		return err
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("the work after the error is not a whole project (%w); the last autosave is kept", err)
	}
	st := stampOf(a, p)
	if err := s.mark(a, p); err != nil {
		return err
	}
	s.seq++
	if err := s.put(p, s.seq); err != nil {
		return err
	}
	s.wrote, s.last = st, time.Now()
	return nil
}

// put writes snapshot seq to the recovery file unless a later snapshot,
// a removal or a recovery got there first.
func (s *autosaver) put(p *assets.Project, seq uint64) error {
	s.io.Lock()
	defer s.io.Unlock()
	if seq <= s.floor || seq <= s.onDisk {
		return nil
	}
	if err := assets.SaveProject(s.path(), p); err != nil {
		return err
	}
	s.onDisk = seq
	return nil
}

// remove removes the recovery file (the document was saved, or the
// session ends); no snapshot taken before writes it again.
func (s *autosaver) remove() {
	s.io.Lock()
	defer s.io.Unlock()
	s.floor, s.onDisk = s.seq, 0
	os.Remove(s.path())
}

// adopt makes the dead session's recovery file from this session's (the
// recovered document's state as that session autosaved it); no snapshot
// taken before writes over it.
func (s *autosaver) adopt(from string) error {
	s.io.Lock()
	defer s.io.Unlock()
	s.floor, s.onDisk = s.seq, 0
	return os.Rename(from, s.path())
}

// safely runs f, turning a panic in it into its error.
func safely(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return f()
}

// mark records in p's settings where its document came from.
func (s *autosaver) mark(a *App, p *assets.Project) error {
	origin, err := json.Marshal(recoveryOrigin{Path: a.doc.Path, Title: a.doc.Title, Saved: time.Now()})
	if err != nil {
		return err
	}
	p.Settings["autosave"] = origin
	return nil
}

// close ends the session cleanly: its recovery file and lock go, and so
// does a dead session's file the artist declined to recover (unless
// another session is recovering it).
func (s *autosaver) close() {
	for {
		s.mu.Lock()
		busy := s.inFlight
		s.mu.Unlock()
		if !busy {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.remove()
	os.Remove(lockOf(s.path()))
	s.lock.Close()
	if s.declined && s.orphan != "" {
		if lock, err := claim(s.orphan); err == nil {
			os.Remove(s.orphan)
			os.Remove(lock.Name())
			lock.Close()
		}
	}
}

// lockOf is the lock file of the session whose recovery file is path.
func lockOf(path string) string {
	return strings.TrimSuffix(path, assets.ProjectExt) + ".lock"
}

// claim takes the lock of a dead session's recovery file, so that no
// other session recovers (or offers) it meanwhile; it fails when another
// session holds it.
func claim(path string) (*os.File, error) {
	lock, err := os.OpenFile(lockOf(path), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, errors.New("another Gallop is recovering it")
	}
	return lock, nil
}

// recoverLast opens the newest recovery file of a session that died as the
// document: its scene, view and tools as they were autosaved, with the
// original project path and title, unsaved, and an undo history that
// starts there. The file becomes this session's recovery file.
func (a *App) recoverLast() {
	s := a.autosave
	if s == nil || s.orphan == "" {
		a.fail(errors.New("there is no session to recover"))
		return
	}
	from := s.orphan
	lock, err := claim(from)
	if err != nil {
		a.fail(fmt.Errorf("recovering %s: %w", from, err))
		return
	}
	// The claim is held until the file is this session's (or the load
	// failed); the kernel drops it should Gallop die meanwhile.
	release := func() { lock.Close() }
	var p *assets.Project
	a.loadJob("Recovering "+filepath.Base(from), func(ctx context.Context, progress func(done, total int)) (err error) {
		p, err = assets.LoadProject(ctx, from, progress)
		if err != nil {
			release()
		}
		return err
	}, func() {
		defer release()
		var origin recoveryOrigin
		if raw, ok := p.Settings["autosave"]; ok {
			if err := json.Unmarshal(raw, &origin); err != nil {
				a.fail(fmt.Errorf("%s: autosave settings: %w", from, err))
			}
		}
		d := &Document{Scene: p.Scene, Active: p.Active, Frame: p.Frame, Selection: p.Selection, Path: origin.Path, Title: origin.Title}
		a.setDocument(d, p)
		d.Frame = max(0, min(d.Frame, d.NumFrames()-1))
		a.history.MarkSavedAt(-1) // unsaved: the recovered work is not on disk as a project
		at := origin.Saved
		if st, err := os.Stat(from); err == nil {
			at = st.ModTime() // the time the start's question showed
		}
		if err := s.adopt(from); err == nil {
			os.Remove(lock.Name())
		}
		s.orphan, s.declined = newestOrphan(s.dir), false
		s.wrote = stamp{}
		a.win.SetTitle("Gallop - " + filepath.Base(d.DisplayName()) + " (recovered)")
		a.info("Recovered %s as autosaved at %s", d.DisplayName(), at.Format("15:04:05"))
	})
}

// startAutosave sets up the session's recovery file; when a session that
// died left one, the artist is asked at once whether to recover it.
func (a *App) startAutosave() {
	every := a.opts.Autosave
	if every == 0 {
		every = DefaultAutosave
	}
	cache, err := os.UserCacheDir()
	if err == nil {
		a.autosave, err = newAutosaver(cache, every)
	}
	if err != nil {
		a.fail(fmt.Errorf("autosave is off: %w", err))
		return
	}
	if a.autosave == nil { // --autosave off
		return
	}
	a.autosave.wake = a.waker.wake
	if a.autosave.orphan != "" {
		a.modal.openRecover = true
	}
}

// recoverModal asks, at start, whether to recover the session that died.
func (a *App) recoverModal() giu.Widget {
	return giu.Custom(func() {
		s := a.autosave
		if a.modal.openRecover {
			giu.OpenPopup("Recover last session")
			a.modal.openRecover = false
		}
		if s == nil || s.orphan == "" {
			return
		}
		when := ""
		if st, err := os.Stat(s.orphan); err == nil {
			when = " (autosaved " + st.ModTime().Format("Jan 2 15:04:05") + ")"
		}
		centreNext()
		giu.PopupModal("Recover last session").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
			windowMark("popup Recover last session"),
			giu.Label("Gallop closed without saving the last session's work"+when+".\nRecover it? Until you quit, it stays available from File > Recover Last Session."),
			giu.Row(
				panels.Marked("recover: Recover", giu.Button("Recover").Size(110, 0).OnClick(func() {
					giu.CloseCurrentPopup()
					a.confirmDiscard("recovering the last session", a.recoverLast)
				})),
				panels.Marked("recover: Not Now", giu.Button("Not Now").Size(110, 0).OnClick(func() {
					s.declined = true
					giu.CloseCurrentPopup()
				})),
			),
			escapeCloses(),
		).Build()
	})
}
