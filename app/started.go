package app

import (
	_ "embed"
	"strings"
)

// startedText is Help > Getting started, the one source of it: the
// README's Getting started section is the same text (TestGettingStarted).
//
//go:embed started.md
var startedText string

// startedPage is one page of Help > Getting started: a title and its
// lines.
type startedPage struct {
	tool  string
	lines []string
}

// gettingStarted is Help > Getting started: the window and each tool in
// three lines, then the chain through every tool on horse-gallop; pages
// from started.md's "## " headings, lines from their "- " items.
var gettingStarted = parseStarted(startedText)

// parseStarted reads the pages of a Getting started text.
func parseStarted(text string) []startedPage {
	var pages []startedPage
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			pages = append(pages, startedPage{tool: strings.TrimPrefix(l, "## ")})
		case strings.HasPrefix(l, "- ") && len(pages) > 0:
			p := &pages[len(pages)-1]
			p.lines = append(p.lines, strings.TrimPrefix(l, "- "))
		}
	}
	return pages
}
