// Package farmtest is for tests that need a Slurm cluster: RequireSlurm
// skips a test when none answers, or fails it when GALLOP_REQUIRE_SLURM=1
// (as `make test` sets it, after starting the single-node cluster of
// scripts/slurm-local.sh), so a missing cluster never passes as a skip.
package farmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// answer is what sinfo said, asked once: a node idle or mixed, or why not.
var answer = sync.OnceValue(func() error {
	// sinfo retries for about 9 s when no controller runs.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sinfo", "-h", "-N", "-o", "%T").CombinedOutput()
	if err == nil && (strings.Contains(string(out), "idle") || strings.Contains(string(out), "mixed")) {
		return nil
	}
	return fmt.Errorf("no Slurm cluster answers (scripts/slurm-local.sh start starts one): sinfo: %q, %v", out, err)
})

// RequireSlurm skips t when no Slurm cluster answers, or fails it when
// GALLOP_REQUIRE_SLURM=1.
func RequireSlurm(t testing.TB) {
	t.Helper()
	err := answer()
	switch {
	case err == nil:
	case os.Getenv("GALLOP_REQUIRE_SLURM") == "1":
		t.Fatal(err.Error() + " [GALLOP_REQUIRE_SLURM=1]")
	default:
		t.Skip(err.Error())
	}
}
