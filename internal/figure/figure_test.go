package figure

import (
	"bytes"
	"testing"
)

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "pose_horse_iteration", 4.5, "ms"); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `{"name":"pose_horse_iteration","value":4.5,"unit":"ms"}`+"\n"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
