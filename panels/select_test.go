package panels

import (
	"reflect"
	"testing"
)

func TestSetOps(t *testing.T) {
	a := []int{1, 3, 5, 7}
	b := []int{2, 3, 7, 9}
	if got := union(a, b); !reflect.DeepEqual(got, []int{1, 2, 3, 5, 7, 9}) {
		t.Fatalf("union = %v", got)
	}
	if got := difference(a, b); !reflect.DeepEqual(got, []int{1, 5}) {
		t.Fatalf("difference = %v", got)
	}
	if got := union(nil, nil); len(got) != 0 {
		t.Fatalf("union of empties = %v", got)
	}
	if got := difference(a, nil); !reflect.DeepEqual(got, a) {
		t.Fatalf("a minus nothing = %v", got)
	}
}
