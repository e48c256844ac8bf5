// Package fault injects a bug on purpose, so that the tests can check that
// Gallop survives one: At(site) panics the first time it is reached when
// the environment variable GALLOP_FAULT names that site, and never
// otherwise; GALLOP_FAULT=site* makes it panic every time (a bug that
// stays). Sites are fixed strings in the code ("edit", "export", ...);
// an unset or unknown GALLOP_FAULT costs one string comparison.
package fault

import (
	"os"
	"sync"
)

var (
	mu    sync.Mutex
	armed = os.Getenv("GALLOP_FAULT")
)

// At panics, once per process, if GALLOP_FAULT names site, and every
// time if it names site followed by "*".
func At(site string) {
	mu.Lock()
	hit := armed != "" && (armed == site || armed == site+"*")
	if hit && armed == site {
		armed = ""
	}
	mu.Unlock()
	if hit {
		panic("fault injected at " + site + " (GALLOP_FAULT)")
	}
}

// Arm makes the next At(site) panic, as GALLOP_FAULT=site does (tests;
// "site*" for every At(site)).
func Arm(site string) {
	mu.Lock()
	armed = site
	mu.Unlock()
}
