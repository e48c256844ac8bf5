package assets

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
	"unsafe"
)

// This file converts decimal text to float64 for the OBJ reader, faster than
// strconv.ParseFloat for the plain decimals that fill OBJ files and with the
// same results: common forms ([+-]digits[.digits][e[+-]digits] with at most
// 19 significant digits) are converted in one pass with the algorithms
// strconv itself uses (exact float arithmetic when the mantissa and power of
// ten are small, else Eisel-Lemire, https://nigeltao.github.io/blog/2020/eisel-lemire.html),
// and everything else, including the rare inputs Eisel-Lemire cannot decide,
// goes to strconv.ParseFloat. Both give the correctly rounded float64, so
// the results agree bit for bit; tests check this against strconv.

// parseFloatField parses the number at the start of s, which ends at a
// space (isOBJSpace) or the end of s, and returns it with the length of its
// field. err is strconv.ParseFloat's error for the field: on ErrRange, x is
// ±Inf or 0 as from strconv.
func parseFloatField(s []byte, pow *pow10Table) (x float64, n int, err error) {
	if x, n, ok := parseDecimal(s, pow); ok {
		return x, n, nil
	}
	n = 0
	for n < len(s) && !isOBJSpace(s[n]) {
		n++
	}
	// The string shares s's bytes and is not kept: no allocation.
	x, err = strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), n), 64)
	return x, n, err
}

// parseDecimal converts the common decimal forms at the start of s when
// the field ends there at a space or the end of s, and reports false for
// anything it does not convert.
func parseDecimal(s []byte, pow *pow10Table) (x float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var man uint64
	nd := 0    // significant digits in man
	exp10 := 0 // man·10^exp10 is the value
	digits := false
	for ; i < len(s) && isDecimalDigit(s[i]); i++ {
		digits = true
		if man == 0 && s[i] == '0' {
			continue
		}
		if nd == 19 {
			return 0, 0, false
		}
		man = man*10 + uint64(s[i]-'0')
		nd++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDecimalDigit(s[i]); i++ {
			digits = true
			exp10--
			if man == 0 && s[i] == '0' {
				continue
			}
			if nd == 19 {
				return 0, 0, false
			}
			man = man*10 + uint64(s[i]-'0')
			nd++
		}
	}
	if !digits {
		return 0, 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) || !isDecimalDigit(s[i]) {
			return 0, 0, false
		}
		e := 0
		for ; i < len(s) && isDecimalDigit(s[i]); i++ {
			if e < 100000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	if i < len(s) && !isOBJSpace(s[i]) {
		return 0, 0, false
	}
	if x, ok := exactFloat(man, exp10, neg); ok {
		return x, i, true
	}
	if x, ok := eiselLemire(man, exp10, neg, pow); ok {
		return x, i, true
	}
	return 0, 0, false
}

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// exactFloat returns man·10^exp10 when float arithmetic computes it with a
// single rounding: man fits in 52 bits and the power of ten is exact (as
// strconv's atof64exact).
func exactFloat(man uint64, exp10 int, neg bool) (float64, bool) {
	if man>>52 != 0 {
		return 0, false
	}
	f := float64(man)
	if neg {
		f = -f
	}
	switch {
	case exp10 == 0:
		return f, true
	case exp10 > 0 && exp10 <= 15+22:
		if exp10 > 22 { // move zeros into the integer part if it stays exact
			f *= exactPow10[exp10-22]
			exp10 = 22
		}
		if f > 1e15 || f < -1e15 {
			return 0, false
		}
		return f * exactPow10[exp10], true
	case exp10 < 0 && exp10 >= -22:
		return f / exactPow10[-exp10], true
	}
	return 0, false
}

const (
	pow10Min = -348 // smallest power of ten in pow10Table
	pow10Max = 347  // largest
)

// pow10Table holds, for each power of ten 10^e with pow10Min ≤ e ≤
// pow10Max, the 128 most significant bits of its binary expansion, rounded
// down, as {hi, lo} 64-bit halves: the table of Eisel-Lemire.
type pow10Table [pow10Max - pow10Min + 1][2]uint64

// pow10Tab computes the table once, on first use (about a millisecond).
var pow10Tab = sync.OnceValue(func() *pow10Table {
	var t pow10Table
	one, ten := big.NewInt(1), big.NewInt(10)
	var p, q big.Int
	for e := pow10Min; e <= pow10Max; e++ {
		p.Exp(ten, big.NewInt(int64(max(e, -e))), nil)
		if e >= 0 {
			// 10^e shifted to 128 bits.
			if l := p.BitLen(); l > 128 {
				q.Rsh(&p, uint(l-128))
			} else {
				q.Lsh(&p, uint(128-l))
			}
		} else {
			// 2^(127+L) / 10^-e, with L the bit length of 10^-e, lies in
			// (2^127, 2^128) as 10^-e is not a power of two.
			q.Quo(q.Lsh(one, uint(127+p.BitLen())), &p)
		}
		w := q.Bits() // little-endian words
		if bits.UintSize == 64 {
			t[e-pow10Min] = [2]uint64{uint64(w[1]), uint64(w[0])}
		} else {
			t[e-pow10Min] = [2]uint64{uint64(w[3])<<32 | uint64(w[2]), uint64(w[1])<<32 | uint64(w[0])}
		}
	}
	return &t
})

// eiselLemire returns man·10^exp10 correctly rounded, or false when the
// algorithm cannot decide the rounding or the result is subnormal, zero
// (for man > 0) or out of range. It follows strconv's eiselLemire64.
func eiselLemire(man uint64, exp10 int, neg bool, pow *pow10Table) (float64, bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	p := &pow[exp10-pow10Min]
	const bias = 1023
	// exp2 is the binary exponent of p: floor(exp10·log2(10)) + 1.
	exp2 := 1 + (exp10*108853)>>15
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	retExp2 := uint64(exp2+63+bias) - uint64(clz)

	xHi, xLo := bits.Mul64(man, p[0])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, p[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}

	msb := xHi >> 63
	retMan := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && retMan&3 == 1 {
		return 0, false // halfway between two floats
	}
	retMan += retMan & 1
	retMan >>= 1
	if retMan>>53 > 0 {
		retMan >>= 1
		retExp2++
	}
	if retExp2-1 >= 0x7FF-1 {
		return 0, false // subnormal or infinite
	}
	b := retExp2<<52 | retMan&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
