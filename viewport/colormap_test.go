package viewport

import (
	"math"
	"testing"
)

func TestColormapEndpoints(t *testing.T) {
	for _, tc := range []struct {
		c      Colormap
		t      float64
		want   [3]float32
		reason string
	}{
		{Viridis, 0, [3]float32{0.267004, 0.004874, 0.329415}, "first entry"},
		{Viridis, 1, [3]float32{0.993248, 0.906157, 0.143936}, "last entry"},
		{Viridis, 0.5, [3]float32{(0.128729 + 0.127568) / 2, (0.563265 + 0.566949) / 2, (0.551229 + 0.550556) / 2}, "between entries 127 and 128"},
		{Viridis, -3, [3]float32{0.267004, 0.004874, 0.329415}, "clamped below"},
		{Viridis, math.Inf(1), [3]float32{0.993248, 0.906157, 0.143936}, "clamped above"},
		{Turbo, 0, [3]float32{0.18995, 0.07176, 0.23217}, "first entry"},
		{Turbo, 1, [3]float32{0.47960, 0.01583, 0.01055}, "last entry"},
		{Turbo, 2, [3]float32{0.47960, 0.01583, 0.01055}, "clamped above"},
		{Turbo, math.Inf(-1), [3]float32{0.18995, 0.07176, 0.23217}, "clamped below"},
	} {
		got := tc.c.At(tc.t)
		for k := range 3 {
			if math.Abs(float64(got[k]-tc.want[k])) > 1e-6 {
				t.Errorf("%v.At(%g) (%s) = %v, want %v", tc.c, tc.t, tc.reason, got, tc.want)
				break
			}
		}
	}
}

// luminance returns the relative luminance (ITU-R BT.709, on linearised
// sRGB) of an sRGB colour.
func luminance(c [3]float32) float64 {
	lin := func(x float32) float64 {
		v := float64(x)
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
}

func TestViridisMonotoneLuminance(t *testing.T) {
	prev := -1.0
	for i := 0; i <= 4096; i++ {
		s := float64(i) / 4096
		y := luminance(Viridis.At(s))
		if y <= prev {
			t.Fatalf("luminance %g at t = %g does not exceed %g just before", y, s, prev)
		}
		prev = y
	}
	// Turbo is not monotone: dark at both ends, bright in the middle.
	if a, m, b := luminance(Turbo.At(0)), luminance(Turbo.At(0.5)), luminance(Turbo.At(1)); !(m > a && m > b) {
		t.Errorf("turbo luminance %g, %g, %g at 0, 0.5, 1", a, m, b)
	}
}

func TestColormapContinuous(t *testing.T) {
	for _, c := range []Colormap{Viridis, Turbo} {
		prev := c.At(0)
		for i := 1; i <= 10000; i++ {
			cur := c.At(float64(i) / 10000)
			for k := range 3 {
				if d := math.Abs(float64(cur[k] - prev[k])); d > 0.002 || cur[k] < 0 || cur[k] > 1 {
					t.Fatalf("%v jumps by %g at t = %g: %v after %v", c, d, float64(i)/10000, cur, prev)
				}
			}
			prev = cur
		}
	}
}

func TestColormapNaN(t *testing.T) {
	for _, c := range []Colormap{Viridis, Turbo} {
		if got := c.At(math.NaN()); got != NaNColor {
			t.Errorf("%v.At(NaN) = %v, want %v", c, got, NaNColor)
		}
		// The NaN grey is far from every colour of the map.
		for i := 0; i <= 255; i++ {
			col := c.At(float64(i) / 255)
			d := 0.0
			for k := range 3 {
				d += math.Pow(float64(col[k]-NaNColor[k]), 2)
			}
			if math.Sqrt(d) < 0.1 {
				t.Errorf("%v at %d/255 = %v is within %g of the NaN grey", c, i, col, math.Sqrt(d))
			}
		}
	}
}

func TestColormapUnknown(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("At of an unknown colormap did not panic")
		}
	}()
	Colormap(7).At(0.5)
}

func TestColormapString(t *testing.T) {
	if Viridis.String() != "viridis" || Turbo.String() != "turbo" || Colormap(9).String() != "Colormap(9)" {
		t.Errorf("names %q, %q, %q", Viridis, Turbo, Colormap(9))
	}
}

func TestNormalize(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		values []float64
		lo, hi float64
	}{
		{[]float64{3, -2, 7, 0}, -2, 7},
		{[]float64{nan, 4, inf, -inf, 1, nan}, 1, 4},
		{[]float64{5}, 5, 5},
		{[]float64{nan, inf}, 0, 1},
		{nil, 0, 1},
	} {
		lo, hi := Normalize(tc.values)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("Normalize(%v) = %g, %g, want %g, %g", tc.values, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestScale(t *testing.T) {
	for _, tc := range []struct{ v, lo, hi, want float64 }{
		{5, 0, 10, 0.5},
		{-5, 0, 10, -0.5},
		{3, 3, 3, 0.5},
		{math.Inf(1), 3, 3, math.Inf(1)},
		{math.Inf(-1), 0, 1, math.Inf(-1)},
	} {
		if got := Scale(tc.v, tc.lo, tc.hi); got != tc.want {
			t.Errorf("Scale(%g, %g, %g) = %g, want %g", tc.v, tc.lo, tc.hi, got, tc.want)
		}
	}
	if !math.IsNaN(Scale(math.NaN(), 0, 1)) || !math.IsNaN(Scale(math.NaN(), 1, 1)) {
		t.Error("Scale(NaN) is not NaN")
	}
	if a := testing.AllocsPerRun(100, func() { Turbo.At(Scale(0.3, 0, 1)) }); a != 0 {
		t.Errorf("At allocates %v times", a)
	}
}
