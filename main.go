// Command gallop is an authoring tool for artists who animate deformable
// meshes. With no arguments it opens its window on a built-in demo scene;
// `gallop FILE` opens a project or mesh; `gallop COMMAND ...` runs a
// headless command (`gallop help` lists them: the cli package's
// commands).
package main

import (
	"os"

	"gallop/app"
	"gallop/cli"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && cli.Handles(args[0]) {
		os.Exit(cli.Main(args))
	}
	os.Exit(app.Main(args))
}
