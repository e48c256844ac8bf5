// Package figure writes the lines of gallop bench: one JSON object a
// figure, {"name": ..., "value": ..., "unit": ...}, the format the
// command prints and the window's benchmarks relay to it.
package figure

import (
	"encoding/json"
	"io"
)

// Write prints one figure as a line of JSON.
func Write(w io.Writer, name string, value float64, unit string) error {
	return json.NewEncoder(w).Encode(struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	}{name, value, unit})
}
