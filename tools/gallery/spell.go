package gallery

import (
	"fmt"
	"math"
	"strings"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/solver/plausible"
	"gallop/viewport"
)

// spell is the balls that spell of Section 5.3: the bins to fill, painted
// on a grid in the panel, the number of balls and log λ.
type spell struct {
	Cols, Rows int
	Fill       []string // one string per row, 'x' to fill and '.' to leave empty
	Balls      int      // 0: one per bin to fill
	LogLam     float64  `json:"LogLambda"` // log λ

	paint byte // while the mouse is held on the grid: 'x' paints, '.' erases; 0 otherwise
}

// newSpell returns "HI" on 7 × 5 bins with the paper's λ = e^5.
func newSpell() Settings {
	s := &spell{}
	s.preset("HI")
	return s
}

// preset loads one of plausible.SpellLetters with the paper's λ for it.
func (s *spell) preset(word string) {
	rows := plausible.SpellLetters[word]
	s.Rows, s.Cols = len(rows), len(rows[0])
	s.Fill = append([]string(nil), rows...)
	s.Balls = 0
	s.LogLam = 5
	if strings.Count(strings.Join(rows, ""), "x") > 10 {
		s.LogLam = 7.25
	}
}

// resize changes the grid's size, keeping the painted bins that remain.
func (s *spell) resize(cols, rows int) {
	cols, rows = min(max(cols, 1), spellMaxCols), min(max(rows, 1), spellMaxRows)
	fill := make([]string, rows)
	for r := range fill {
		b := []byte(strings.Repeat(".", cols))
		if r < len(s.Fill) {
			copy(b, s.Fill[r][:min(cols, len(s.Fill[r]))])
		}
		fill[r] = string(b)
	}
	s.Cols, s.Rows, s.Fill = cols, rows, fill
}

// The grid's limits and its cells' size on screen.
const (
	spellMaxCols = 20
	spellMaxRows = 12
	spellCell    = 13
)

// Panel implements Settings: presets, the grid size, the bins painted by
// clicking and dragging (a drag that starts on an empty bin fills, one
// that starts on a filled bin empties), the number of balls.
func (s *spell) Panel(edited func()) giu.Layout {
	cols, rows, balls := int32(s.Cols), int32(s.Rows), int32(s.Balls)
	return giu.Layout{
		giu.Row(
			giu.Button("HI").OnClick(func() { s.preset("HI"); edited() }),
			giu.Button("ACM").OnClick(func() { s.preset("ACM"); edited() }),
			giu.Button("Clear").OnClick(func() { s.Fill = nil; s.resize(s.Cols, s.Rows); edited() }),
		),
		giu.Row(
			giu.InputInt(&cols).Label("columns").Size(60).OnChange(func() { s.resize(int(cols), s.Rows); edited() }),
			giu.InputInt(&rows).Label("rows").Size(60).OnChange(func() { s.resize(s.Cols, int(rows)); edited() }),
		),
		giu.Label("Bins to fill (click or drag to paint):"),
		giu.Custom(func() { s.grid(edited) }),
		giu.InputInt(&balls).Label("balls (0: one per bin)").Size(80).OnChange(func() { s.Balls = int(max(balls, 0)); edited() }),
	}
}

// grid draws the bins and paints them under the held mouse.
func (s *spell) grid(edited func()) {
	s.resize(s.Cols, s.Rows) // repair a grid loaded from a hand-edited project
	origin := imgui.CursorScreenPos()
	size := imgui.Vec2{X: float32(s.Cols * spellCell), Y: float32(s.Rows * spellCell)}
	imgui.InvisibleButton("spell-bins", size)
	if imgui.IsItemActive() {
		m := imgui.MousePos()
		c, r := int((m.X-origin.X)/spellCell), int((m.Y-origin.Y)/spellCell)
		if c >= 0 && c < s.Cols && r >= 0 && r < s.Rows {
			cur := s.Fill[r][c]
			if s.paint == 0 {
				s.paint = 'x'
				if cur == 'x' {
					s.paint = '.'
				}
			}
			if cur != s.paint {
				b := []byte(s.Fill[r])
				b[c] = s.paint
				s.Fill[r] = string(b)
				edited()
			}
		}
	} else {
		s.paint = 0
	}
	dl := imgui.WindowDrawList()
	full := imgui.ColorU32Vec4(imgui.Vec4{X: 0.25, Y: 0.7, Z: 0.35, W: 1})
	empty := imgui.ColorU32Vec4(imgui.Vec4{X: 0.22, Y: 0.22, Z: 0.25, W: 1})
	edge := imgui.ColorU32Vec4(imgui.Vec4{X: 0.5, Y: 0.45, Z: 0.4, W: 1})
	for r := 0; r < s.Rows; r++ {
		for c := 0; c < s.Cols; c++ {
			lo := imgui.Vec2{X: origin.X + float32(c*spellCell), Y: origin.Y + float32(r*spellCell)}
			hi := imgui.Vec2{X: lo.X + spellCell, Y: lo.Y + spellCell}
			col := empty
			if s.Fill[r][c] == 'x' {
				col = full
			}
			dl.AddRectFilled(lo, hi, col)
			dl.AddRect(lo, hi, edge)
		}
	}
}

// Viewport implements Settings: the bins are edited in the panel.
func (s *spell) Viewport(*viewport.View, *viewport.Input) bool { return false }

// LogLambda implements Settings.
func (s *spell) LogLambda() *float64 { return &s.LogLam }

// Model implements Settings: the setup shown before sampling is the ideal
// drop, each ball above a bin to fill (Spell.Ideal).
func (s *spell) Model() (*Model, error) {
	s.resize(s.Cols, s.Rows)
	if math.IsNaN(s.LogLam) || s.LogLam > 700 {
		return nil, fmt.Errorf("log λ = %v: want a number above 0 (λ > 1)", s.LogLam)
	}
	word := strings.Join(s.Fill, "/")
	for name, rows := range plausible.SpellLetters {
		if strings.Join(rows, "/") == word {
			word = name
		}
	}
	sc, err := plausible.NewSpell(word, s.Fill, math.Exp(s.LogLam))
	if err != nil {
		return nil, err
	}
	sc.Balls = s.Balls
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(sc, sc.Ideal()), nil
}
