package app

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"

	"gallop/assets"
)

const maxRecent = 10

// recentPath is where the Open Recent list is kept between sessions:
// $XDG_CONFIG_HOME/gallop/recent.json (or the platform's equivalent).
func recentPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gallop", "recent.json")
}

func loadRecent() []string {
	p := recentPath()
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var list []string
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	return list
}

func saveRecent(list []string) {
	p := recentPath()
	if p == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	b, _ := json.Marshal(list)
	// The list is a convenience: failing to write it is not worth a message.
	_ = assets.WriteFileAtomic(p, func(w io.Writer) error { _, err := w.Write(b); return err })
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
	saveRecent(a.recent)
}
