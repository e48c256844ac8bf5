package rigpanel

import (
	"strings"
	"testing"

	"gallop/assets"
)

// TestNoResultNamesTheAppliedRig (issue 34): before a run of this session,
// an object that has a rig (a reopened project, a recovered session) is
// said to have it, not "No rig yet", which made an artist run it again
// thinking it lost.
func TestNoResultNamesTheAppliedRig(t *testing.T) {
	rigged := &assets.Object{Name: "horse", Rig: &assets.Rig{Joints: make([]assets.Joint, 20)}}
	if got := noResult(rigged); !strings.Contains(got, "horse has a rig (20 joints)") {
		t.Errorf("rigged object: %q", got)
	}
	for _, o := range []*assets.Object{nil, {Name: "bar"}} {
		if got := noResult(o); got != "No rig yet." {
			t.Errorf("%v: %q", o, got)
		}
	}
}
