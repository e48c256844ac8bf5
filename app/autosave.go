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
// offers the newest of them. A clean exit removes the session's files;
// saving the document removes the recovery file (the project is the
// newer copy).
type autosaver struct {
	dir   string
	id    string // this session's: pid and start time
	every time.Duration
	lock  *os.File

	last     time.Time // the last autosave began
	wrote    stamp     // what it held
	orphan   string    // the newest recovery file of a session that died, "" none
	mu       sync.Mutex
	results  []error // autosaves finished since the last poll
	inFlight bool
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
	lock, err := os.OpenFile(s.lockPath(s.id), os.O_CREATE|os.O_RDWR, 0o644)
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

func (s *autosaver) path() string              { return filepath.Join(s.dir, "autosave-"+s.id+assets.ProjectExt) }
func (s *autosaver) lockPath(id string) string { return filepath.Join(s.dir, "autosave-"+id+".lock") }

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
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "autosave-"), assets.ProjectExt)
		if held(filepath.Join(dir, "autosave-"+id+".lock")) {
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
			os.Remove(s.path())
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
	go func() {
		err := safely(func() error { return assets.SaveProject(s.path(), p) })
		s.mu.Lock()
		s.inFlight = false
		s.results = append(s.results, err)
		s.mu.Unlock()
		giu.Update()
		if err == nil && panels.Trace {
			fmt.Printf("autosaved %s\n", s.path())
		}
	}()
	return nil
}

// now writes the recovery file at once, waiting for it (after a caught
// panic, when the next frame may not come). A panic while it snapshots or
// writes (the bug that was caught may be in a tool's state) is its error.
func (s *autosaver) now(a *App) error {
	return safely(func() error { return s.write(a) })
}

func (s *autosaver) write(a *App) error {
	p, err := a.projectSnapshot()
	if err != nil {
		return err
	}
	st := stampOf(a, p)
	if err := s.mark(a, p); err != nil {
		return err
	}
	s.wrote, s.last = st, time.Now()
	return assets.SaveProject(s.path(), p)
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

// close ends the session cleanly: its recovery file and lock go.
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
	os.Remove(s.path())
	os.Remove(s.lockPath(s.id))
	s.lock.Close()
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
	var p *assets.Project
	a.loadJob("Recovering "+filepath.Base(from), func(ctx context.Context, progress func(done, total int)) (err error) {
		p, err = assets.LoadProject(ctx, from, progress)
		return err
	}, func() {
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
		if err := os.Rename(from, s.path()); err == nil {
			os.Remove(strings.TrimSuffix(from, assets.ProjectExt) + ".lock")
		}
		s.orphan = newestOrphan(s.dir)
		s.wrote = stamp{}
		a.win.SetTitle("Gallop - " + filepath.Base(d.DisplayName()) + " (recovered)")
		a.info("Recovered %s as autosaved at %s", d.DisplayName(), origin.Saved.Format("15:04:05"))
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
	if a.autosave != nil && a.autosave.orphan != "" {
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
			giu.Label("Gallop closed without saving the last session's work"+when+".\nRecover it? It stays available from File > Recover Last Session."),
			giu.Row(
				panels.Marked("recover: Recover", giu.Button("Recover").Size(110, 0).OnClick(func() {
					giu.CloseCurrentPopup()
					a.confirmDiscard("recovering the last session", a.recoverLast)
				})),
				panels.Marked("recover: Not Now", giu.Button("Not Now").Size(110, 0).OnClick(giu.CloseCurrentPopup)),
			),
			escapeCloses(),
		).Build()
	})
}
