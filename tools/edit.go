package tools

import (
	"fmt"
	"slices"

	"gallop/assets"
)

// Parts are the fields of an object that tools replace as a whole: its
// clip, rig, joint animation, takes and source. They are values the
// document shares (the renderer and jobs hold on to them), so an edit
// replaces them and never modifies them.
type Parts struct {
	Clip   *assets.Clip
	Rig    *assets.Rig
	Skin   *assets.SkinAnimation
	Takes  []assets.Take
	Source *assets.Source
}

// PartsOf returns o's parts.
func PartsOf(o *assets.Object) Parts {
	return Parts{Clip: o.Clip, Rig: o.Rig, Skin: o.Skin, Takes: o.Takes, Source: o.Source}
}

// KeepTake makes the clip p plays now one of the object's takes (the
// first), with its joint animation, before a tool's result takes its
// place, so that nothing the object played is lost: Apply rig keeps the
// captured clip, Bake the skinned one. A clip already among the takes is
// not kept twice.
func (p *Parts) KeepTake() {
	if p.Clip == nil || slices.ContainsFunc(p.Takes, func(t assets.Take) bool { return t.Clip == p.Clip }) {
		return
	}
	p.Takes = append([]assets.Take{{Clip: p.Clip, Skin: p.Skin}}, p.Takes...)
}

// PlayTake returns the edit that makes take i of o its clip (and its
// joint animation, when the take has its own), and what o played a take
// in that take's place.
func PlayTake(o *assets.Object, i int) *ReplaceParts {
	return NewReplaceParts(fmt.Sprintf("Play %q", o.Takes[i].Clip.Name), o, func(p *Parts) {
		takes := slices.Clone(p.Takes)
		tk := takes[i]
		takes[i] = assets.Take{Clip: p.Clip, Skin: p.Skin}
		p.Clip = tk.Clip
		if tk.Skin != nil {
			p.Skin = tk.Skin
		}
		if takes[i].Clip == nil {
			takes = slices.Delete(takes, i, i+1)
		}
		p.Takes = takes
	})
}

// ReplaceParts is the undoable edit that gives an object new parts (a
// solved or baked clip, an applied or inferred rig): Do sets After, Undo
// puts Before back.
type ReplaceParts struct {
	Label         string
	Obj           *assets.Object
	Before, After Parts
}

// NewReplaceParts returns the edit named label that applies change to o's
// parts. The edited object is embedded in the project from then on: its
// source is dropped.
func NewReplaceParts(label string, o *assets.Object, change func(p *Parts)) *ReplaceParts {
	c := &ReplaceParts{Label: label, Obj: o, Before: PartsOf(o)}
	c.After = c.Before
	change(&c.After)
	c.After.Source = nil
	return c
}

// Name implements undo.Command.
func (c *ReplaceParts) Name() string { return c.Label }

// Do implements undo.Command.
func (c *ReplaceParts) Do() { c.set(c.After) }

// Undo implements undo.Command.
func (c *ReplaceParts) Undo() { c.set(c.Before) }

func (c *ReplaceParts) set(p Parts) {
	c.Obj.Clip, c.Obj.Rig, c.Obj.Skin, c.Obj.Takes, c.Obj.Source = p.Clip, p.Rig, p.Skin, p.Takes, p.Source
}
