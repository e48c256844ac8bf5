package app

import (
	"fmt"
	"time"

	"github.com/AllenDang/giu"
)

// playback is the timeline's transport state. While playing, the frame
// shown is the one due at the elapsed wall time, so playback keeps the
// clip's frame rate however fast the UI draws.
type playback struct {
	playing bool
	loop    bool
	elapsed time.Duration // since start
	start   int           // frame playback started from
}

func (a *App) togglePlay() {
	if a.play.playing {
		a.play.playing = false
		return
	}
	if a.doc.Frame >= a.doc.NumFrames()-1 {
		a.doc.Frame = 0
	}
	a.play = playback{playing: true, loop: a.play.loop, start: a.doc.Frame}
}

func (a *App) advancePlayback(dt time.Duration) {
	if !a.play.playing {
		return
	}
	n := a.doc.NumFrames()
	a.play.elapsed += dt
	f := a.play.start + int(a.play.elapsed.Seconds()*a.doc.FPS())
	if f >= n {
		if a.play.loop && n > 0 {
			f %= n
		} else {
			f = n - 1
			a.play.playing = false
		}
	}
	a.doc.Frame = f
}

func (a *App) setFrame(f int) {
	a.doc.Frame = max(0, min(f, a.doc.NumFrames()-1))
	if a.play.playing {
		a.play.start, a.play.elapsed = a.doc.Frame, 0
	}
}

func (a *App) stepFrame(d int) {
	n := a.doc.NumFrames()
	a.play.playing = false
	a.setFrame((a.doc.Frame + d + n) % n)
}

// timeline lays out the transport: play / pause, loop, the frame slider,
// the frame rate and the frame counter.
func (a *App) timeline() giu.Widget {
	n := a.doc.NumFrames()
	frame := int32(a.doc.Frame + 1) // shown 1-based, like the counter
	playLabel := "Play"
	if a.play.playing {
		playLabel = "Pause"
	}
	fps := float32(a.doc.FPS())
	o := a.doc.Object()
	w, _ := giu.GetAvailableRegion()
	return giu.Row(
		giu.Button("|<").OnClick(func() { a.setFrame(0) }),
		giu.Button(playLabel+"##play").Size(52, 0).OnClick(a.togglePlay),
		giu.Button(">|").OnClick(func() { a.setFrame(n - 1) }),
		giu.Checkbox("Loop", &a.play.loop),
		giu.SliderInt(&frame, 1, int32(max(1, n))).Label("##frame").Size(w-420).Format("frame %d").OnChange(func() { a.setFrame(int(frame) - 1) }),
		giu.InputFloat(&fps).Label("fps").Size(60).Format("%.3g").OnChange(func() {
			if o != nil && o.Clip != nil && fps > 0 && fps <= 1000 {
				a.history.Do(&setFPSCmd{clip: o.Clip, before: o.Clip.FPS, after: float64(fps)})
			}
		}),
		giu.Label(fmt.Sprintf("%d / %d", a.doc.Frame+1, n)),
	)
}
