package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/sqweek/dialog"
)

// fileFilter is one entry of a file dialog's type list.
type fileFilter struct {
	desc string
	exts []string
}

// dialogs runs native file dialogs (sqweek/dialog: GTK 3 on Linux) on a
// goroutine of their own, locked to one OS thread, so the window keeps
// drawing (and jobs keep reporting) while a dialog is open. Results come
// back to the UI thread through poll. One dialog is open at a time.
type dialogs struct {
	requests chan func()
	wake     func()      // asks the UI for a frame (any goroutine)
	fail     func(error) // reports a dialog failure (UI thread)

	mu      sync.Mutex
	open    bool
	results []func()
	dir     string // where the next Open dialog starts: next to the data last opened or chosen
	saveDir string // where the next Save dialog starts without a suggested folder: where the last save went
}

func newDialogs(wake func(), fail func(error)) *dialogs {
	d := &dialogs{requests: make(chan func()), wake: wake, fail: fail}
	go func() {
		runtime.LockOSThread()
		for req := range d.requests {
			req()
		}
	}()
	return d
}

// run starts show on the dialog thread unless a dialog is already open;
// on the UI thread, done then receives the chosen path, unless cancelled.
// The chosen path's folder is where the next dialog of its kind starts
// (saving: a Save dialog; else an Open one).
func (d *dialogs) run(saving bool, show func() (string, error), done func(string)) {
	d.mu.Lock()
	if d.open {
		d.mu.Unlock()
		return
	}
	d.open = true
	d.mu.Unlock()
	d.requests <- func() {
		path, err := safeShow(show)
		d.mu.Lock()
		d.open = false
		switch {
		case err == nil && path != "" && saving:
			d.saveDir = filepath.Dir(path)
			d.results = append(d.results, func() { done(path) })
		case err == nil && path != "":
			d.dir = startDir(path)
			d.results = append(d.results, func() { done(path) })
		case err != nil && !errors.Is(err, dialog.ErrCancelled):
			d.results = append(d.results, func() { d.fail(err) })
		}
		d.mu.Unlock()
		d.wake()
	}
}

func safeShow(show func() (string, error)) (path string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("file dialog unavailable: %v", p)
		}
	}()
	return show()
}

// startDir returns where a dialog should start after path was opened or
// chosen: the folder holding it (a file, or a folder of frames, whose
// neighbours are likely next). "" when path does not exist.
func startDir(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(abs); err != nil {
		return ""
	}
	return filepath.Dir(abs)
}

// near makes the next dialogs start next to path, the data just opened.
func (d *dialogs) near(path string) {
	if dir := startDir(path); dir != "" {
		d.mu.Lock()
		d.dir = dir
		d.mu.Unlock()
	}
}

// start returns where the next Open dialog starts ("": the toolkit's
// choice).
func (d *dialogs) start() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dir
}

// isOpen reports whether a native dialog is open: the window then takes
// no shortcut keys (the letters typed go to the dialog).
func (d *dialogs) isOpen() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.open
}

// saveStart returns where a Save dialog for suggested starts: the
// suggestion's folder (the project's own path), else where the last save
// went, else the user's home folder; never the data's folder, so that
// exports do not land beside a capture that is not the artist's.
func (d *dialogs) saveStart(suggested string) string {
	if filepath.Dir(suggested) != "." {
		return filepath.Dir(suggested)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.saveDir != "" {
		return d.saveDir
	}
	home, _ := os.UserHomeDir()
	return home
}

// poll delivers finished dialogs' results on the UI thread.
func (d *dialogs) poll() {
	d.mu.Lock()
	res := d.results
	d.results = nil
	d.mu.Unlock()
	for _, f := range res {
		f()
	}
}

func (d *dialogs) load(title string, f fileFilter, done func(string)) {
	dir := d.start()
	d.run(false, func() (string, error) {
		return dialog.File().Title(title).Filter(f.desc, f.exts...).Filter("All files", "*").SetStartDir(dir).Load()
	}, done)
}

// save asks where to save, suggesting a file name, starting where
// saveStart says.
func (d *dialogs) save(title string, f fileFilter, suggested string, done func(string)) {
	dir := d.saveStart(suggested)
	d.run(true, func() (string, error) {
		b := dialog.File().Title(title).Filter(f.desc, f.exts...).SetStartDir(dir)
		if suggested != "" {
			b = b.SetStartFile(filepath.Base(suggested))
		}
		return b.Save()
	}, done)
}

func (d *dialogs) folder(title string, done func(string)) {
	dir := d.start()
	d.run(false, func() (string, error) { return dialog.Directory().Title(title).SetStartDir(dir).Browse() }, done)
}
