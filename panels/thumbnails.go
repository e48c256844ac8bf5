package panels

import (
	"time"

	"github.com/AllenDang/giu"

	"gallop/viewport"
	"gallop/viewport/render"
)

// Thumbnails renders the pictures of a tool's gallery (the Gallery tool's
// samples, the Synthesize tool's variations), keyed by K, offscreen with
// one shared renderer, copying each picture into a texture of its own. New
// pictures are made at most NewPerFrame per UI frame, so a gallery filling
// in never stalls the window; the hovered item is re-rendered as it plays.
// All methods run on the UI thread, inside the layout (the OpenGL context
// is current). The zero value is ready to use.
//
// Each UI frame: Begin, then Texture (and Hover for the item under the
// mouse) for every item shown, then End, which frees the pictures of
// items no longer shown; Release frees them all.
type Thumbnails[K comparable] struct {
	r   *render.Renderer
	err error // the renderer could not be made: no pictures

	tex     map[K]*thumb
	used    map[K]bool // drawn this UI frame
	budget  int        // new pictures left this UI frame
	hovered K          // under the mouse in the last UI frame
	hovers  bool       // whether hovered is set
	next    K          // under the mouse in this one
	nexts   bool
	since   time.Time // when hovered was first hovered
	ready   int       // pictures in tex
}

// thumb is an item's picture and the frame it shows.
type thumb struct {
	tex   uint32
	frame int
}

// NewPerFrame is how many new thumbnails one UI frame renders; ThumbW and
// ThumbH are their size in pixels.
const (
	NewPerFrame    = 2
	ThumbW, ThumbH = 116, 87
)

// Picture is what a thumbnail shows of frame (−1: the still picture of the
// whole motion): the camera and the items to draw.
type Picture func(frame int) (viewport.Camera, []viewport.Item)

// Begin starts a UI frame.
func (th *Thumbnails[K]) Begin() {
	th.budget, th.nexts = NewPerFrame, false
	th.used = map[K]bool{}
}

// Hover notes that k is under the mouse.
func (th *Thumbnails[K]) Hover(k K) { th.next, th.nexts = k, true }

// Hovered reports whether k was under the mouse in the last UI frame.
func (th *Thumbnails[K]) Hovered(k K) bool { return th.hovers && th.hovered == k }

// Ready returns the number of pictures made.
func (th *Thumbnails[K]) Ready() int { return th.ready }

// Texture returns the texture showing k, rendering it with picture if
// needed: the still picture, or while k is hovered the frame due since the
// hover began, of frames at fps. It returns 0 while k has no picture yet.
func (th *Thumbnails[K]) Texture(k K, frames int, fps float64, picture Picture) uint32 {
	th.used[k] = true
	if th.err != nil {
		return 0
	}
	frame := -1
	if th.Hovered(k) && frames > 0 && fps > 0 {
		frame = int(time.Since(th.since).Seconds()*fps) % frames
		giu.Update() // keep playing while the mouse rests
	}
	t := th.tex[k]
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
	cam, items := picture(frame)
	if th.err = th.r.Render(ThumbW, ThumbH, &cam, style, items, 0); th.err != nil {
		return 0
	}
	if t == nil {
		t = &thumb{}
		if th.tex == nil {
			th.tex = map[K]*thumb{}
		}
		th.tex[k] = t
		th.budget--
		th.ready++
	}
	t.tex, t.frame = th.r.CopyTexture(t.tex), frame
	return t.tex
}

// End finishes a UI frame: it frees the pictures of items no longer shown
// and starts a hovered item's playback from its first frame.
func (th *Thumbnails[K]) End() {
	if th.nexts != th.hovers || th.next != th.hovered {
		th.hovered, th.hovers, th.since = th.next, th.nexts, time.Now()
	}
	for k, t := range th.tex {
		if !th.used[k] {
			render.DeleteTexture(t.tex)
			delete(th.tex, k)
			th.ready--
		}
	}
}

// Release frees every picture (the tool is closing).
func (th *Thumbnails[K]) Release() {
	for k, t := range th.tex {
		render.DeleteTexture(t.tex)
		delete(th.tex, k)
	}
	th.ready = 0
	if th.r != nil {
		th.r.Release()
		th.r = nil
	}
}
