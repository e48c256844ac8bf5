package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// repoRoot is the repository's top folder, from this package's.
const repoRoot = ".."

// referenceInvocations are the help texts docs/cli.md holds, in its order.
var referenceInvocations = [][]string{
	{"--help"},
	{"info", "--help"}, {"convert", "--help"}, {"pose", "--help"}, {"sample", "--help"},
	{"rig", "--help"}, {"dynamics", "--help"}, {"synth", "--help"},
	{"ensemble", "--help"}, {"ensemble", "build", "--help"}, {"ensemble", "play", "--help"},
	{"merge", "--help"},
	{"farm", "--help"}, {"farm", "submit", "--help"}, {"farm", "status", "--help"}, {"farm", "cancel", "--help"},
	{"bench", "--help"},
}

// helpText runs gallop with args (a --help) and returns what it printed on
// either stream.
func helpText(t *testing.T, args []string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); io.Copy(&out, r) }()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	status := Main(args)
	os.Stdout, os.Stderr = stdout, stderr
	w.Close()
	wg.Wait()
	r.Close()
	if status != 0 {
		t.Fatalf("gallop %s: exit status %d:\n%s", strings.Join(args, " "), status, out.String())
	}
	return out.String()
}

// cliReference is docs/cli.md as the commands' help texts make it.
func cliReference(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Command-line reference\n\n")
	b.WriteString("Each command's `--help`, exactly as `gallop` prints it (the prose, with\n")
	b.WriteString("examples and the JSON fields, is in [Command line](command-line.md)).\n")
	b.WriteString("`go test ./cli -run TestCLIReference` checks that this file and the\n")
	b.WriteString("binary agree; with `GALLOP_UPDATE_DOCS=1` it rewrites this file.\n")
	for _, args := range referenceInvocations {
		name := strings.Join(append([]string{"gallop"}, args[:len(args)-1]...), " ")
		fmt.Fprintf(&b, "\n## %s\n\n```\n%s```\n", name, strings.TrimRight(helpText(t, args), "\n")+"\n")
	}
	return b.String()
}

// TestCLIReference (issue 34): docs/cli.md is every command's --help as
// the binary prints it.
func TestCLIReference(t *testing.T) {
	path := filepath.Join(repoRoot, "docs", "cli.md")
	want := cliReference(t)
	if os.Getenv("GALLOP_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s differs from the commands' --help (GALLOP_UPDATE_DOCS=1 go test ./cli -run TestCLIReference rewrites it)", path)
	}
}

// TestDocLinks (issue 34): every relative link of the README and of docs/
// resolves: the file exists and, for a link to a heading (#anchor), the
// Markdown file has that heading (GitHub's anchors); the README stays a
// front page of at most 400 lines.
func TestDocLinks(t *testing.T) {
	files := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			full := f
			if path != "" {
				full = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(full); err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			if anchor != "" && !slugs(t, full)[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", f, target, full, anchor)
			}
		}
	}
	if b, _ := os.ReadFile(files[0]); bytes.Count(b, []byte("\n")) > 400 {
		t.Errorf("the README has %d lines; it is the front page (at most 400), the rest belongs in docs/", bytes.Count(b, []byte("\n")))
	}
}

// stripCode removes fenced code blocks, whose text is not Markdown.
func stripCode(s string) string {
	var out []string
	fence := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// slugs returns the anchors of a Markdown file's headings as GitHub makes
// them: lower case, punctuation dropped, spaces as hyphens.
func slugs(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(stripCode(string(b)), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var s strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				s.WriteRune(r)
			case r == ' ':
				s.WriteByte('-')
			}
		}
		out[s.String()] = true
	}
	return out
}
