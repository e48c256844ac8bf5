package layering

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers, top to bottom. A package belongs to the layer of the longest
// pattern that matches its import path ("x/..." matches x and everything
// below it). docs/architecture.md shows the same table.
var layerOf = []struct{ pattern, layer string }{
	{"gallop", "main"},
	{"gallop/app/...", "app"},
	{"gallop/panels/...", "panels"},
	{"gallop/cli/...", "cli"},
	{"gallop/tools/...", "models"},
	{"gallop/viewport/render", "render"},
	{"gallop/viewport", "viewport"},
	{"gallop/shaders", "shaders"},
	{"gallop/assets/...", "assets"},
	{"gallop/solver/...", "solver"},
	{"gallop/internal/...", "base"},
}

// mayImport lists the layers each layer's packages may import (their own
// included where listed).
var mayImport = map[string][]string{
	"main":     {"app", "cli"},
	"app":      {"app", "panels", "models", "render", "viewport", "assets", "solver", "base"},
	"panels":   {"panels", "models", "render", "viewport", "assets", "solver", "base"},
	"cli":      {"cli", "models", "viewport", "assets", "solver", "base"},
	"models":   {"models", "viewport", "assets", "solver", "base"},
	"render":   {"viewport", "shaders", "assets", "base"},
	"viewport": {"viewport", "assets", "solver", "base"},
	"shaders":  {},
	"assets":   {"assets", "base"},
	"solver":   {"solver", "base"},
	"base":     {"base"},
}

// guiFree are the layers that must build without the window: no package
// of theirs may depend, directly or not, on a module of guiModules, so
// their tests run without compiling Dear ImGui.
var guiFree = []string{"cli", "models", "viewport", "assets", "solver", "base"}

var guiModules = []string{
	"github.com/AllenDang/cimgui-go",
	"github.com/AllenDang/giu",
	"github.com/go-gl/gl",
	"github.com/go-gl/glfw",
}

// pkg is what go list -json says of a package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Deps       []string
}

func layer(path string) string {
	best, bestLen := "", -1
	for _, l := range layerOf {
		base, tree := strings.CutSuffix(l.pattern, "/...")
		if path == base || tree && strings.HasPrefix(path, base+"/") {
			if len(base) > bestLen {
				best, bestLen = l.layer, len(base)
			}
		}
	}
	return best
}

// root is the module's folder, set by listPackages.
var root string

// listPackages returns what go list -json ./... says of Gallop's packages.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root = filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// importSites returns, for each import path of p's non-test files, the
// file and line of its first import.
func importSites(t *testing.T, p pkg) map[string]string {
	t.Helper()
	sites := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range append(slices.Clone(p.GoFiles), p.CgoFiles...) {
		path := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if _, ok := sites[ip]; !ok {
				pos := fset.Position(im.Pos())
				file, err := filepath.Rel(root, pos.Filename)
				if err != nil {
					file = pos.Filename
				}
				sites[ip] = fmt.Sprintf("%s:%d", file, pos.Line)
			}
		}
	}
	return sites
}

// TestImportsPointDown fails on every import of a non-test file that goes
// to a layer its layer may not import, naming the file and line.
func TestImportsPointDown(t *testing.T) {
	for _, p := range listPackages(t) {
		from := layer(p.ImportPath)
		if from == "" {
			t.Errorf("%s: no layer; add it to layerOf", p.ImportPath)
			continue
		}
		sites := importSites(t, p)
		for _, im := range p.Imports {
			if im != "gallop" && !strings.HasPrefix(im, "gallop/") {
				continue
			}
			to := layer(im)
			if !slices.Contains(mayImport[from], to) {
				t.Errorf("%s: %s (layer %s) imports %s (layer %s), which points up or across the layers", sites[im], p.ImportPath, from, im, to)
			}
		}
	}
}

// TestHeadlessLayersLinkNoWindow fails when a package of a GUI-free layer
// depends on Dear ImGui, GLFW or OpenGL, naming the file and import that
// brings it in.
func TestHeadlessLayersLinkNoWindow(t *testing.T) {
	pkgs := listPackages(t)
	deps := map[string][]string{}
	for _, p := range pkgs {
		deps[p.ImportPath] = p.Deps
	}
	gui := func(path string) string {
		for _, m := range guiModules {
			if path == m || strings.HasPrefix(path, m+"/") {
				return path
			}
		}
		return ""
	}
	for _, p := range pkgs {
		if !slices.Contains(guiFree, layer(p.ImportPath)) {
			continue
		}
		sites := importSites(t, p)
		for _, im := range p.Imports {
			bad := gui(im)
			for _, d := range deps[im] {
				if bad == "" {
					bad = gui(d)
				}
			}
			if bad != "" {
				t.Errorf("%s: %s (layer %s, which must build without the window) imports %s, which brings in %s", sites[im], p.ImportPath, layer(p.ImportPath), im, bad)
			}
		}
	}
}

// TestLayerTable checks the table itself: every layer named is defined.
func TestLayerTable(t *testing.T) {
	for _, l := range layerOf {
		if _, ok := mayImport[l.layer]; !ok {
			t.Errorf("layer %s of %s has no mayImport entry", l.layer, l.pattern)
		}
	}
	for from, tos := range mayImport {
		for _, to := range tos {
			if _, ok := mayImport[to]; !ok {
				t.Errorf("%s may import unknown layer %s", from, to)
			}
		}
	}
	for _, c := range []struct{ path, want string }{
		{"gallop", "main"}, {"gallop/app/guitest", "app"}, {"gallop/viewport/render", "render"},
		{"gallop/viewport", "viewport"}, {"gallop/tools/pose", "models"}, {"gallop/internal/jobs", "base"},
		{"gallop/solverx", ""},
	} {
		if got := layer(c.path); got != c.want {
			t.Errorf("layer(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}
