// Settings Gallop keeps between sessions, outside any project: the Open
// Recent list (recent.json) and the side panels' widths (layout.json).

package app

import (
	"encoding/json"
	"gallop/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"slices"
)

const maxRecent = 10

// configPath returns where Gallop keeps a file of settings between
// sessions: $XDG_CONFIG_HOME/gallop/NAME (or the platform's equivalent),
// "" when there is no such folder.
func configPath(name string) string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gallop", name)
}

// loadConfig reads the settings file name into v (JSON) and reports
// whether it could; a missing or damaged file leaves v as it was.
func loadConfig(name string, v any) bool {
	p := configPath(name)
	if p == "" {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && json.Unmarshal(b, v) == nil
}

// saveConfig writes v as the settings file name. These files are
// conveniences (Open Recent, the panels' widths): failing to write one is
// not worth a message.
func saveConfig(name string, v any) {
	p := configPath(name)
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = atomicfile.Write(p, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// loadRecent returns the Open Recent list kept in recent.json.
func loadRecent() []string {
	var list []string
	if !loadConfig("recent.json", &list) {
		return nil
	}
	return list
}

// addRecent puts path at the top of Open Recent, and the next file
// dialogs next to it.
func (a *App) addRecent(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	if a.dialogs != nil {
		a.dialogs.near(abs)
	}
	a.recent = slices.DeleteFunc(a.recent, func(p string) bool { return p == abs })
	a.recent = append([]string{abs}, a.recent...)
	if len(a.recent) > maxRecent {
		a.recent = a.recent[:maxRecent]
	}
	saveConfig("recent.json", a.recent)
}
