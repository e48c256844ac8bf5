// Package option holds the one rule of the numeric options whose zero
// value means a default and whose negative value means none: ssdr's
// smoothness, translation affinity and polish rounds, the ensemble
// model's β and PCA threshold, the ensemble build's searches harder. The
// solvers read such an option with Resolve; a setting where 0 means none
// (a flag, a panel's field, a file's record) reaches it through Literal.
package option

// Number is what such an option holds.
type Number interface{ ~int | ~float64 }

// Resolve returns what the option x means: def when x is 0, 0 (none)
// when x is negative, x otherwise (NaN included).
func Resolve[T Number](x, def T) T {
	switch {
	case x == 0:
		return def
	case x < 0:
		return 0
	}
	return x
}

// Literal returns the option value that means x itself, 0 (none)
// included: −1 for 0, x otherwise. Resolve(Literal(x), def) is x for
// every x ≥ 0.
func Literal[T Number](x T) T {
	if x == 0 {
		return -1
	}
	return x
}
