// Command gallop is an authoring tool for artists who animate deformable
// meshes. With no arguments it opens its window on a built-in demo scene;
// `gallop FILE` opens a project or mesh; `gallop COMMAND ...` runs a
// headless command (info, convert, bench). See `gallop help`.
package main

import (
	"os"

	"gallop/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
