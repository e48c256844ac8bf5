// Package layering holds the test that keeps Gallop's import graph
// pointing down the layers (see layering_test.go and docs/architecture.md). It has no code of its own.
package layering
