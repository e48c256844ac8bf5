package assets

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkParseFloatField checks that parseFloatField agrees with
// strconv.ParseFloat on the field s: same bits, same field length, and an
// error exactly when strconv gives one.
func checkParseFloatField(t testing.TB, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	// A space after the field must end it.
	for _, tail := range []string{"", " 7", "\r\n"} {
		got, n, err := parseFloatField([]byte(s+tail), pow10Tab())
		if n != len(s) {
			t.Fatalf("parseFloatField(%q): field of %d bytes, want %d", s+tail, n, len(s))
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("parseFloatField(%q): error %v, strconv's %v", s+tail, err, werr)
		}
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("parseFloatField(%q) = %v (%#x), strconv gives %v (%#x)", s+tail, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

func TestParseFloatFieldKnown(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "-0.000", "00000", "1", "-1", "+5", ".5", "5.", "-.5", "0.1", "0.2", "0.3",
		"1e0", "1E5", "1e+5", "1e-5", "1.5e300", "-2.5E-300", "1e308", "1.7976931348623157e308",
		"1.7976931348623159e308", "1e309", "-1e400", "4.9406564584124654e-324", "5e-324", "2e-324", "1e-400",
		"2.2250738585072011e-308", "2.2250738585072014e-308", "2.2250738585072012e-308",
		"9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
		"18446744073709551615", "18446744073709551616", "1844674407370955161.5",
		"1234567890123456789", "12345678901234567890", "0.12345678901234567890123",
		"-0.022742370500000001", "0.97907069999999996", "-0.63614849900000003",
		"1e22", "1e23", "123456e17", "123456e20", "8.98846567431158e307", "3.4028235e38",
		"0.0000000000000000000000000000000000000000001", "1000000000000000000000000000000",
		"7.0e-10", "2.4414062500000000e-04", "6.103515625e-05", "1.00000000000000011102230246251565404236316680908203125",
		"1.00000000000000011102230246251565404236316680908203124", "1.00000000000000011102230246251565404236316680908203126",
		"1e-348", "1e-349", "1e347", "1e348", "9999999999999999999e-348", "1e-330", "1e-340",
		// Not decimal in the common form: strconv decides.
		"", "-", "+", ".", "-.", "e5", "1e", "1e+", "1e-", "1.5.5", "1..5", "--1", "+-1", "1e5.5", "1,5",
		"inf", "-Inf", "+INF", "infinity", "nan", "NaN", "0x1p-2", "0X1.8P+1", "0x10", "1_000", "0x_1p0",
		"1f", "1d", "abc", "1 ", "1e99999999999999999999", "1e-99999999999999999999", "0e99999",
		"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
	} {
		s = strings.TrimRight(s, " ")
		checkParseFloatField(t, s)
	}
}

func TestParseFloatFieldRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	formats := []byte{'e', 'f', 'g'}
	for i := 0; i < n; i++ {
		// Printed floats: shortest, and with too many or too few digits.
		x := math.Float64frombits(r.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		checkParseFloatField(t, strconv.FormatFloat(x, 'g', -1, 64))
		checkParseFloatField(t, strconv.FormatFloat(x, 'e', r.IntN(25), 64))
		y := (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(40)-20))
		checkParseFloatField(t, strconv.FormatFloat(y, formats[r.IntN(3)], r.IntN(22)-1, 64))
		// Random digit strings with a random point and exponent.
		var b []byte
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		nd := 1 + r.IntN(24)
		point := r.IntN(nd + 1)
		for k := 0; k < nd; k++ {
			if k == point {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			b = append(b, 'e')
			b = strconv.AppendInt(b, int64(r.IntN(700)-350), 10)
		}
		checkParseFloatField(t, string(b))
	}
}

func TestPow10Table(t *testing.T) {
	// Spot checks against strconv's table (internal/strconv/pow10tab.go).
	tab := pow10Tab()
	for _, c := range []struct {
		e      int
		hi, lo uint64
	}{
		{-348, 0xfa8fd5a0081c0288, 0x1732c869cd60e453},
		{-1, 0xcccccccccccccccc, 0xcccccccccccccccc},
		{0, 0x8000000000000000, 0x0000000000000000},
		{1, 0xa000000000000000, 0x0000000000000000},
		{347, 0xd13eb46469447567, 0x4b7195f2d2d1a9fb},
	} {
		if got := tab[c.e-pow10Min]; got != [2]uint64{c.hi, c.lo} {
			t.Errorf("10^%d: %#x, want {%#x %#x}", c.e, got, c.hi, c.lo)
		}
	}
}

func BenchmarkParseFloatField(b *testing.B) {
	fields := [][]byte{[]byte("-0.022739015899999999"), []byte("0.97907069999999996"), []byte("1.5"), []byte("-123.25e-3")}
	pow := pow10Tab()
	b.Run("parseFloatField", func(b *testing.B) {
		for b.Loop() {
			for _, f := range fields {
				if _, _, err := parseFloatField(f, pow); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, f := range fields {
				if _, err := strconv.ParseFloat(string(f), 64); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
