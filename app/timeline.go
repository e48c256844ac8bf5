package app

import (
	"fmt"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/panels"
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
	d := a.stage()
	if d.Frame >= d.NumFrames()-1 {
		d.Frame = 0
	}
	a.play = playback{playing: true, loop: a.play.loop, start: d.Frame}
}

func (a *App) advancePlayback(dt time.Duration) {
	if !a.play.playing {
		return
	}
	d := a.stage()
	n := d.NumFrames()
	a.play.elapsed += dt
	f := a.play.start + int(a.play.elapsed.Seconds()*d.FPS())
	if f >= n {
		if a.play.loop && n > 0 {
			f %= n
		} else {
			f = n - 1
			a.play.playing = false
		}
	}
	d.Frame = f
}

func (a *App) setFrame(f int) {
	d := a.stage()
	d.Frame = max(0, min(f, d.NumFrames()-1))
	if a.play.playing {
		a.play.start, a.play.elapsed = d.Frame, 0
	}
}

func (a *App) stepFrame(d int) {
	n := a.stage().NumFrames()
	a.play.playing = false
	a.setFrame((a.stage().Frame + d + n) % n)
}

// timeline lays out the transport: play / pause, loop, the frame slider,
// the frame rate and the frame counter, for the stage (a preview's frame
// rate is not editable).
func (a *App) timeline() giu.Widget {
	d := a.stage()
	n := d.NumFrames()
	frame := int32(d.Frame + 1) // shown 1-based, like the counter
	playLabel := "Play"
	if a.play.playing {
		playLabel = "Pause"
	}
	fps := float32(d.FPS())
	o := a.doc.Object()
	if a.preview != nil {
		o = nil
	}
	w, _ := giu.GetAvailableRegion()
	return giu.Row(
		giu.Button("|<").OnClick(func() { a.setFrame(0) }),
		giu.Button(playLabel+"##play").Size(52, 0).OnClick(a.togglePlay),
		giu.Button(">|").OnClick(func() { a.setFrame(n - 1) }),
		giu.Checkbox("Loop", &a.play.loop),
		giu.SliderInt(&frame, 1, int32(max(1, n))).Label("##frame").Size(w-420).Format("frame %d").OnChange(func() { a.setFrame(int(frame) - 1) }),
		giu.Custom(func() { a.timelineMarks(n) }),
		giu.InputFloat(&fps).Label("fps").Size(60).Format("%.3g").OnChange(func() {
			if o != nil && o.Clip != nil && fps > 0 && fps <= 1000 {
				a.history.Do(&setFPSCmd{clip: o.Clip, before: o.Clip.FPS, after: float64(fps)})
			}
		}),
		panels.Marked("timeline: "+frameCounter(d), giu.Label(frameCounter(d))),
	)
}

// markColour is the colour of the frames a preview marks on the timeline.
const markColour = 0xff3aa0ff // ABGR: orange

// timelineMarks draws the preview's marked frames (a synthesised clip's
// splices) as ticks across the frame slider just laid out, of n frames.
// Dear ImGui's slider keeps its grab inside the frame padding, so frame f
// sits at the grab's centre for value f+1.
func (a *App) timelineMarks(n int) {
	if a.preview == nil || len(a.preview.marks) == 0 || n < 2 {
		return
	}
	lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
	st := imgui.CurrentStyle()
	grab := st.GrabMinSize()
	x0 := lo.X + st.FramePadding().X + grab/2
	x1 := hi.X - st.FramePadding().X - grab/2
	dl := imgui.WindowDrawList()
	for _, f := range a.preview.marks {
		x := x0 + (x1-x0)*float32(f)/float32(n-1)
		dl.AddLineV(imgui.Vec2{X: x, Y: lo.Y}, imgui.Vec2{X: x, Y: lo.Y + (hi.Y-lo.Y)*0.35}, markColour, 2)
		dl.AddLineV(imgui.Vec2{X: x, Y: hi.Y - (hi.Y-lo.Y)*0.35}, imgui.Vec2{X: x, Y: hi.Y}, markColour, 2)
	}
}

// frameCounter is the timeline's counter: the frame shown and the frames
// in all, or what there is instead.
func frameCounter(d *Document) string {
	switch n := d.NumFrames(); {
	case len(d.Scene.Objects) == 0:
		return "empty scene"
	case n == 1:
		return "a still"
	default:
		return fmt.Sprintf("%d / %d", d.Frame+1, n)
	}
}
