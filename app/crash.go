package app

import (
	"bufio"
	"bytes"
	"fmt"
	"gallop/internal/atomicfile"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
)

// crashState is what loop keeps to survive a panic on the UI thread.
type crashState struct {
	imgui  *imgui.ErrorRecoveryState // Dear ImGui's stacks as a frame began
	streak int                       // frames in a row that panicked
	last   string                    // the last panic's message, shown once
}

// loop builds one UI frame and is the window's safety net: a panic while
// building it (a bug in a panel, a tool's model, an edit, an export, a
// job's completion or a dialog's result, all of which run here) is caught
// instead of closing the window. Dear ImGui's window, ID and style stacks
// are unwound to where the frame began (its error-recovery state), the
// document is autosaved, the artist is told what failed and where the
// report is, and the next frame goes on. The edit or action that panicked
// is abandoned where it stood; the undo history is intact.
func (a *App) loop() {
	if a.crash.imgui == nil {
		a.crash.imgui = imgui.InternalNewErrorRecoveryState()
		io := imgui.CurrentIO()
		// Recover without aborting on Dear ImGui's own asserts, and
		// without its debug tooltip.
		io.SetConfigErrorRecovery(true)
		io.SetConfigErrorRecoveryEnableAssert(false)
		io.SetConfigErrorRecoveryEnableTooltip(false)
	}
	imgui.InternalErrorRecoveryStoreState(a.crash.imgui)
	defer func() {
		if p := recover(); p != nil {
			imgui.InternalErrorRecoveryTryToRecoverState(a.crash.imgui)
			a.caught("", p, debug.Stack())
			return
		}
		a.crash.streak = 0
	}()
	a.frame()
}

// guard runs f, an action started outside loop (a window callback such as
// a file drop), catching a panic as loop does.
func (a *App) guard(doing string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			a.caught(doing, p, debug.Stack())
		}
	}()
	f()
}

// caught handles a panic p recovered while doing something ("" within a
// frame), with its
// stack: the report goes to a file and stderr, the document to the
// recovery file, and the artist sees which function failed. A panic that
// comes back frame after frame (a panel that cannot draw the state it is
// in) switches to the Select tool and the document's own scene after 3
// frames, so the window stays usable; its message is shown once.
func (a *App) caught(doing string, p any, stack []byte) {
	a.crash.streak++
	where := panicSite(stack)
	msg := fmt.Sprintf("Gallop hit a bug in %s: %v.", where, p)
	shown := fmt.Sprintf("Gallop hit a bug: %v.", p)
	if doing != "" {
		msg = fmt.Sprintf("Gallop hit a bug in %s while %s: %v.", where, doing, p)
		shown = fmt.Sprintf("Gallop hit a bug while %s: %v.", doing, p)
	}
	if msg == a.crash.last && a.crash.streak > 1 {
		if a.crash.streak == 3 {
			a.preview = nil
			a.setTool(0)
		}
		return
	}
	a.crash.last = msg
	report, err := writeCrashReport(msg, stack)
	fmt.Fprintf(os.Stderr, "gallop: %s\n%s\n", msg, stack)
	text := shown + " The action stopped; the window goes on."
	if a.autosave != nil {
		switch wrote, err := a.autosave.now(a); {
		case err != nil:
			text += fmt.Sprintf(" Autosave failed: %v; save your work under a new name.", err)
		case wrote:
			text += " Your work was autosaved (File > Recover Last Session brings it back if Gallop closes)."
		}
	}
	if err == nil {
		text += " Report: " + report
	}
	a.fail(fmt.Errorf("%s", text))
}

// panicSite names the function that panicked: the first Gallop function
// below the panic in stack (runtime/debug.Stack's text), with its file
// and line, or "Gallop" when none is found.
func panicSite(stack []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(stack))
	afterPanic := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "panic(") {
			afterPanic = true
			continue
		}
		if !afterPanic || strings.HasPrefix(line, "\t") || !strings.HasPrefix(line, "gallop/") || strings.HasPrefix(line, "gallop/internal/fault.") {
			continue
		}
		fn := line
		if i := strings.LastIndex(fn, "("); i > 0 {
			fn = fn[:i]
		}
		fn = strings.TrimPrefix(fn, "gallop/")
		if sc.Scan() {
			loc := strings.TrimSpace(sc.Text())
			if i := strings.LastIndex(loc, " +0x"); i > 0 {
				loc = loc[:i]
			}
			return fmt.Sprintf("%s (%s)", fn, filepath.Base(loc))
		}
		return fn
	}
	return "Gallop"
}

// crashes numbers this process's crash reports, so that two in one
// second do not share a file.
var crashes atomic.Int64

// writeCrashReport writes msg and stack to a new file under the user's
// cache folder (gallop/crash), named for the time, the process and its
// count of reports, atomically (a reader never sees half of one), and
// returns its path.
func writeCrashReport(msg string, stack []byte) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "gallop", "crash")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("crash-%s-%d-%d.txt", time.Now().Format("20060102-150405"), os.Getpid(), crashes.Add(1)))
	return path, atomicfile.WriteBytes(path, []byte(msg+"\n\n"+string(stack)))
}
