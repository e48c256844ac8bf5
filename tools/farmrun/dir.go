package farmrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// NewDir makes a new, empty work folder in parent, named by the time (and
// suffix, when not empty: "2006-01-02T15-04-05-synth"), with "-2", "-3"…
// added when one of that name exists, and returns its absolute path.
// parent is made if missing.
func NewDir(parent, suffix string) (string, error) {
	name := time.Now().Format("2006-01-02T15-04-05")
	if suffix != "" {
		name += "-" + suffix
	}
	base, err := filepath.Abs(filepath.Join(parent, name))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", fmt.Errorf("farm work folder: %w", err)
	}
	for i := 1; ; i++ {
		d := base
		if i > 1 {
			d = fmt.Sprintf("%s-%d", base, i)
		}
		if err := os.Mkdir(d, 0o755); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("farm work folder: %w", err)
		}
	}
}

// CacheParent is the folder of the window's work folders:
// os.UserCacheDir()/gallop/farm. Every node of a real cluster must see it
// at the same path (shared storage, such as a home folder mounted on every
// node); on the local engine any folder does.
func CacheParent() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("farm work folder: %w", err)
	}
	return filepath.Join(cache, "gallop", "farm"), nil
}

// CacheKeep is how long a work folder under CacheParent is kept after
// anything in it last changed: long enough for any run to end and be
// looked at, after which nobody will (the window reads a run back only
// while it follows it).
const CacheKeep = 14 * 24 * time.Hour

// NewCacheDir is NewDir in CacheParent, after removing the work folders
// there that nothing has changed for CacheKeep (PruneOld): the cache
// holds the runs of the window and of the command line, which nobody
// deletes by hand. A folder that cannot be removed is left; the new one is
// made all the same.
func NewCacheDir(suffix string) (string, error) {
	parent, err := CacheParent()
	if err != nil {
		return "", err
	}
	PruneOld(parent, CacheKeep, time.Now())
	return NewDir(parent, suffix)
}

// workDirName is how NewDir names work folders.
var workDirName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(-.*)?$`)

// PruneOld removes the work folders in parent (those named as NewDir names
// them; nothing else is touched) whose newest file or folder was last
// modified more than keep before now, and returns their paths. A running
// task writes its log, so a run still going is never this old.
func PruneOld(parent string, keep time.Duration, now time.Time) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !workDirName.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if newest(dir).After(now.Add(-keep)) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// newest returns the latest modification time in the tree at dir.
func newest(dir string) time.Time {
	var t time.Time
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
		return nil
	})
	return t
}
