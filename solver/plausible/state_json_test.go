package plausible

import (
	"encoding/json"
	"reflect"
	"testing"

	"gallop/solver/mcmc"
)

// roundTrip checks that a state survives JSON (as the Gallery saves
// favourites) and simulates to the same outcome afterwards.
func roundTrip[S, O any](t *testing.T, name string, m mcmc.Model[S, O], same func(a, b O) bool) {
	t.Helper()
	s := m.Init(mcmc.NewRand(4))
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var back S
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	a, err := m.Simulate(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := m.Simulate(back)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !same(a, b) {
		t.Errorf("%s: the state read back from JSON simulates differently", name)
	}
}

func TestStatesRoundTripJSON(t *testing.T) {
	hi, err := NewSpell("HI", SpellLetters["HI"], 0)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "spell", mcmc.Model[SpellState, SpellOutcome](hi), func(a, b SpellOutcome) bool { return reflect.DeepEqual(a.Final, b.Final) })
	bowl, err := NewBowling("strike", 0)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "bowling", mcmc.Model[BowlingState, BowlingOutcome](bowl), func(a, b BowlingOutcome) bool { return reflect.DeepEqual(a, b) })
	roundTrip(t, "dice", mcmc.Model[DiceState, DiceOutcome](NewDice()), func(a, b DiceOutcome) bool { return reflect.DeepEqual(a, b) })
	roundTrip(t, "ball2d", mcmc.Model[Ball2DState, Ball2DOutcome](NewBall2D()), func(a, b Ball2DOutcome) bool { return a == b })
}
