package app

import (
	"testing"
	"time"
)

// TestFrameRate checks pace's rule: playback draws at the clip's rate (a
// little above it, never above the input rate nor below the idle rate),
// input and a working job keep their rates, an idle window slows down.
func TestFrameRate(t *testing.T) {
	long := time.Hour
	for _, c := range []struct {
		name                    string
		benchmark, busy         bool
		sinceInput, sinceActive time.Duration
		playing                 bool
		clip                    float64
		want                    uint
	}{
		{"idle", false, false, long, long, false, 30, fpsIdle},
		{"just active", false, false, long, 0, false, 30, fpsActive},
		{"input", false, false, 0, 0, false, 30, fpsActive},
		{"input while playing", false, false, 0, 0, true, 30, fpsActive},
		{"playing 30 fps", false, false, long, 0, true, 30, 32},
		{"playing 24 fps", false, false, long, 0, true, 24, 26},
		{"playing 29.97 fps", false, false, long, 0, true, 29.97, 32},
		{"playing 120 fps", false, false, long, 0, true, 120, fpsActive},
		{"playing 2 fps", false, false, long, 0, true, 2, fpsIdle},
		{"a job working", false, true, long, 0, false, 30, fpsJob},
		{"a job working while playing", false, true, long, 0, true, 30, fpsJob},
		{"a job working while playing 50 fps", false, true, long, 0, true, 50, 52},
		{"benchmark", true, false, long, long, false, 30, fpsActive},
	} {
		if got := frameRate(c.benchmark, c.busy, c.sinceInput, c.sinceActive, c.playing, c.clip); got != c.want {
			t.Errorf("%s: %d frames a second, want %d", c.name, got, c.want)
		}
	}
}
