package panels

import (
	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
)

// tipEms is the width, in font heights, at which a tooltip's text wraps:
// about sixty characters, so that a sentence of help hovered in the tools
// panel stays beside it instead of running across the properties panel.
const tipEms = 26

// quietTip is the item whose tooltip is held back after a click on it,
// until the mouse leaves it (0: none). Only the UI thread touches it.
var quietTip imgui.ID

// ShowTip shows text as the tooltip of the item laid out just before it:
// once the mouse rests on the item (ImGui's tooltip delay, not at once,
// so that a pointer passing over does not open it), wrapped at tipEms, and
// not after a click on the item until the mouse has left it — as Blender
// does, so that the help of a tool just chosen does not cover the panel
// the click opened. With GALLOP_WIDGETS set the shown tooltip is recorded
// as "tooltip".
func ShowTip(text string) {
	id := imgui.ItemID()
	hovered := imgui.IsItemHovered()
	if id != 0 {
		if hovered && (imgui.IsItemClicked() || imgui.IsItemActivated()) {
			quietTip = id
		}
		if quietTip == id {
			if hovered {
				return
			}
			quietTip = 0
		}
	}
	if !imgui.IsItemHoveredV(imgui.HoveredFlagsForTooltip) {
		return
	}
	if imgui.BeginTooltip() {
		imgui.PushTextWrapPosV(imgui.FontSize() * tipEms)
		imgui.TextUnformatted(text)
		imgui.PopTextWrapPos()
		lo, size := imgui.WindowPos(), imgui.WindowSize()
		RecordRect("tooltip", lo, imgui.Vec2{X: lo.X + size.X, Y: lo.Y + size.Y})
		imgui.EndTooltip()
	}
}

// Tipped builds w with text as its tooltip (see ShowTip): one widget, so
// that in a giu.Row the tooltip takes no place of its own (a giu.Custom
// last in a Row would leave the row's line open, as Marked explains).
func Tipped(w giu.Widget, text string) giu.Widget {
	return giu.Custom(func() {
		w.Build()
		ShowTip(text)
	})
}
