package farmrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
