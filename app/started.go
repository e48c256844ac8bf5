package app

// gettingStarted is Help > Getting started: the window and each tool in
// three lines, then the chain through every tool on horse-gallop.
var gettingStarted = []struct {
	tool  string
	lines []string
}{
	{"The window", []string{
		"File > Open or drop files: an OBJ mesh, a folder of OBJ frames (an animation), a glTF file, a .gallop project.",
		"Middle drag orbits, Shift + middle drag pans, the wheel zooms, Home frames everything; Space plays the timeline.",
		"Every edit undoes with Ctrl+Z; Ctrl+S saves a project that reopens as you left it; F1 lists every key.",
	}},
	{"Select", []string{
		"Click a vertex, Shift-click to add or remove one, drag a box to select many (X-ray reaches hidden ones).",
		"A selects all, Alt+A none; Numpad . frames the selection.",
		"The other tools use the selection: the Pose tool makes handles of it.",
	}},
	{"Pose (Mesh-Based IK)", []string{
		"Add example poses of the mesh (OBJ files, a folder, frames of its animation); they teach how it deforms.",
		"Select vertices, press Ctrl+H for a handle, and drag its ring: the rest follows the examples. Make two: one to hold, one to move.",
		"Insert keys (I) at frames and Solve animation for a clip; Blend examples mixes the examples by hand.",
	}},
	{"Gallery (plausible animations by MCMC)", []string{
		"Pick a scenario (a ball, bowling, balls that spell a word, a die) and set what must happen: a target, pins, bins, a face.",
		"Start runs Markov chains of physical simulations; the gallery fills with different animations that all satisfy it.",
		"Hover a thumbnail to play it, click to see it in the viewport, star your favourites, export glTF.",
	}},
	{"Rig (skinning from animation)", []string{
		"Open a mesh animation (horse-gallop, pcow, any OBJ sequence or glTF clip) and choose the number of bones.",
		"Start fits bones, their motion and smooth skin weights; watch the error fall, then compare side by side.",
		"Look at weights and errors as heat maps, apply the rig to the object, or export a skinned glTF for a game engine.",
	}},
	{"Dynamics (secondary motion on a skin)", []string{
		"Open a skinned glTF, or apply a rig from the Rig tool; the dynamic animation is simulated ahead of the timeline.",
		"Paint materials with the brush (Stiff, Soft tissue, Jelly) and watch the jiggle; Poke pulls a vertex by hand.",
		"Or fit the materials to an example simulation; Bake to clip keeps the result, and a skinned export carries it.",
	}},
	{"Synthesize (one clip into many)", []string{
		"Open a mesh animation; Analyse finds where it can cut and splice itself, shown as a cost map and a motion graph.",
		"Generate fills a gallery with variations of any length; targets pin frames, obstacles keep the mesh out of spheres or the ground.",
		"Play one, export it as glTF, or add it to the document, with its rig, for the other tools.",
	}},
	{"Ensemble (flags and grass forever)", []string{
		"Open an ensemble's folders (one per wind level) and build its motion graph, here or on the farm.",
		"Play: the ensemble moves forever, blending between clips without interpenetration; the slider changes the wind.",
		"Export the played stretch as a compact glTF, or add it to the document.",
	}},
	{"The chain, on horse-gallop (every tool in one window)", []string{
		"1. Open ../shared/data/horse-gallop/frames. Rig: Start, then Apply rig to the object (the capture stays one of its takes).",
		"2. Dynamics: the rig is used at once. Pick Jelly, paint the belly, watch the heat map of the jiggle, Bake to clip.",
		"3. Synthesize: Analyse the baked clip, Generate, click a variation, Add to document.",
		"4. Click the variation in Objects, Shift+H hides the horse; Dynamics again on it (its rig came with it), paint, Bake.",
		"5. File > Export glTF > Skinned or Morph-target: the jiggle is in both; File > Save keeps it all in one project.",
	}},
}
