package gallerypanel

import (
	"time"

	"github.com/AllenDang/giu"

	"gallop/tools/gallery"
	"gallop/viewport"
	"gallop/viewport/render"
)

// thumbnails renders the gallery's samples offscreen with one shared
// renderer, copying each picture into a texture of its own. New pictures
// are made at most newPerFrame per UI frame, so a gallery filling in never
// stalls the window; the hovered sample is re-rendered as it plays. All
// methods run on the UI thread, inside the layout (the OpenGL context is
// current).
type thumbnails struct {
	r   *render.Renderer
	err error // the renderer could not be made: no pictures

	tex     map[*gallery.Sample]*thumb
	used    map[*gallery.Sample]bool // drawn this UI frame
	budget  int                      // new pictures left this UI frame
	hovered *gallery.Sample          // under the mouse in the last UI frame
	next    *gallery.Sample          // under the mouse in this one
	since   time.Time                // when hovered was first hovered
	ready   int                      // pictures in tex
}

// thumb is a sample's picture and the frame it shows.
type thumb struct {
	tex   uint32
	frame int
}

// newPerFrame is how many new thumbnails one UI frame renders;
// strobeFrames is how many exposures of each body a still thumbnail shows,
// for animations of at most strobeBodies bodies.
const (
	newPerFrame  = 2
	strobeFrames = 12
	strobeBodies = 2
)

// begin starts a UI frame.
func (th *thumbnails) begin() {
	th.budget, th.next = newPerFrame, nil
	th.used = map[*gallery.Sample]bool{}
}

// hover notes that s is under the mouse.
func (th *thumbnails) hover(s *gallery.Sample) { th.next = s }

// texture returns the texture showing s, rendering it if needed: a strobe
// picture of its motion (strobeFrames exposures), or while animate the
// frame due since the hover began. It returns 0 while s has no picture
// yet.
func (th *thumbnails) texture(s *gallery.Sample, animate bool) uint32 {
	th.used[s] = true
	if th.err != nil {
		return 0
	}
	n := s.Scene.NumFrames()
	frame := -1 // the strobe picture of the whole motion
	if animate {
		frame = int(time.Since(th.since).Seconds()*s.Anim.FPS) % n
		giu.Update() // keep playing while the mouse rests
	}
	t := th.tex[s]
	if t != nil && t.frame == frame {
		return t.tex
	}
	if t == nil && th.budget <= 0 {
		return 0
	}
	if th.r == nil {
		if th.r, th.err = render.New(); th.err != nil {
			return 0
		}
	}
	style := viewport.DefaultStyle()
	style.Grid, style.Axes = false, false
	cam := s.Scene.ThumbnailCamera(float64(thumbW) / thumbH)
	// A still of a few bodies shows their paths; of many, where they
	// ended (a strobe of ten balls is a blur).
	items := s.Scene.Strobe(strobeFrames)
	if len(s.Anim.Bodies) > strobeBodies {
		items = s.Scene.Items(n - 1)
	}
	if frame >= 0 {
		items = s.Scene.Items(frame)
	}
	if th.err = th.r.Render(thumbW, thumbH, &cam, style, items, 0); th.err != nil {
		return 0
	}
	if t == nil {
		t = &thumb{}
		if th.tex == nil {
			th.tex = map[*gallery.Sample]*thumb{}
		}
		th.tex[s] = t
		th.budget--
		th.ready++
	}
	t.tex, t.frame = th.r.CopyTexture(t.tex), frame
	return t.tex
}

// end finishes a UI frame: it frees the pictures of samples no longer
// shown and starts a hovered sample's playback from its first frame.
func (th *thumbnails) end() {
	if th.next != th.hovered {
		th.hovered, th.since = th.next, time.Now()
	}
	for s, t := range th.tex {
		if !th.used[s] {
			render.DeleteTexture(t.tex)
			delete(th.tex, s)
			th.ready--
		}
	}
}

// release frees every picture (the tool is closing).
func (th *thumbnails) release() {
	for s, t := range th.tex {
		render.DeleteTexture(t.tex)
		delete(th.tex, s)
	}
	th.ready = 0
	if th.r != nil {
		th.r.Release()
		th.r = nil
	}
}
