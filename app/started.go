package app

// gettingStarted is Help > Getting started: each tool in three lines.
var gettingStarted = []struct {
	tool  string
	lines [3]string
}{
	{"The window", [3]string{
		"File > Open or drop files: an OBJ mesh, a folder of OBJ frames (an animation), a glTF file, a .gallop project.",
		"Middle drag orbits, Shift + middle drag pans, the wheel zooms, Home frames everything; Space plays the timeline.",
		"Every edit undoes with Ctrl+Z; Ctrl+S saves a project that reopens as you left it; F1 lists every key.",
	}},
	{"Select", [3]string{
		"Click a vertex, Shift-click to add or remove one, drag a box to select many (X-ray reaches hidden ones).",
		"A selects all, Alt+A none; Numpad . frames the selection.",
		"The other tools use the selection: the Pose tool makes handles of it.",
	}},
	{"Pose (Mesh-Based IK)", [3]string{
		"Add example poses of the mesh (OBJ files, a folder, frames of its animation); they teach how it deforms.",
		"Select vertices, press Ctrl+H for a handle, and drag its ring: the rest follows the examples. Make two: one to hold, one to move.",
		"Insert keys (I) at frames and Solve animation for a clip; Blend examples mixes the examples by hand.",
	}},
	{"Gallery (plausible animations by MCMC)", [3]string{
		"Pick a scenario (a ball, bowling, balls that spell a word, a die) and set what must happen: a target, pins, bins, a face.",
		"Start runs Markov chains of physical simulations; the gallery fills with different animations that all satisfy it.",
		"Hover a thumbnail to play it, click to see it in the viewport, star your favourites, export glTF.",
	}},
	{"Rig (skinning from animation)", [3]string{
		"Open a mesh animation (horse-gallop, pcow, any OBJ sequence or glTF clip) and choose the number of bones.",
		"Start fits bones, their motion and smooth skin weights; watch the error fall, then compare side by side.",
		"Look at weights and errors as heat maps, apply the rig to the object, or export a skinned glTF for a game engine.",
	}},
}
