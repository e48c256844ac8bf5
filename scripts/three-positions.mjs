// three-positions.mjs reads glTF 2.0 files with three.js's own GLTFLoader
// (npm package three, 0.187.0), plays their animations with its
// AnimationMixer and prints where every vertex is at the frames asked, as
// three.js would draw it:
//
//   node scripts/three-positions.mjs [--modules DIR] FPS FRAMES FILE...
//
// FRAMES is a comma list of frame numbers; frame i is time i/FPS seconds.
// For each file it prints one JSON line, prefixed "GALLOP " as
// scripts/blender-positions.py does:
//
//   {"file", "meshes": [names], "vertices": [count per mesh],
//    "skinned": [per mesh], "targets": [morph targets per mesh],
//    "active_targets": [most influences not 0 at once, per mesh, over the
//    frames asked], "influences": [most non-zero skin weights of a vertex
//    per mesh, after three's renormalisation], "ignored_influences":
//    [vertices per mesh with weight in JOINTS_1/WEIGHTS_1 or beyond, which
//    three.js's skinning never reads], "clips": [{"name", "duration",
//    "tracks"}], "rest": [[x, y, z], ...], "frames": [[[x, y, z], ...]
//    per frame]}
//
// where rest is every vertex's POSITION as the file stores it (before
// morph targets, skinning and the node transforms), in the same order as
// a frame, or {"file", "error"} when the file cannot be read; it then exits with
// status 1 (2 on bad usage). The meshes are the scene's Mesh and
// SkinnedMesh objects in scene traversal order (depth first, children in
// the file's order), and a frame lists the vertices of every mesh in that
// order, each mesh's in its POSITION accessor's order (GLTFLoader keeps
// it: it never welds or reorders vertices). Coordinates are glTF's (+Y
// up, no axis swap): the world space of the glTF scene.
//
// Every clip of a file plays at once (clipAction(...).play()), once and
// held at its end (LoopOnce, clampWhenFinished), so that the last key, at
// time = the clip's duration, is played as itself: under three's default
// LoopRepeat the mixer wraps that time to 0 and shows the first key
// instead. A vertex's position is evaluated on the CPU the way three's
// WebGL vertex shader does it: the morph targets blended into the base
// position (relative targets, as GLTFLoader makes glTF's, added with their
// influences; absolute ones by the difference to the base), then, for a
// SkinnedMesh, the skinning of SkinnedMesh.applyBoneTransform (in r187:
// bindMatrix, Σ weight · bone.matrixWorld · boneInverse over the four
// JOINTS_0 / WEIGHTS_0 influences, bindMatrixInverse), then the mesh's
// matrixWorld.
//
// three is looked up in, in order: the directory given with --modules,
// $GALLOP_NPM_DIR, each directory of $NODE_PATH, and
// <repo>/.cache/npm/node_modules, where the Makefile installs it with
//
//   npm install --prefix .cache/npm three@0.187.0
//
// and imported from there by file URL (ES modules ignore NODE_PATH).
// Gallop's tests run it through gallop/assets/gltftest.Three.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const usageLine = "usage: node scripts/three-positions.mjs [--modules DIR] FPS FRAMES FILE...";

function usage(msg) {
  process.stderr.write(`three-positions: ${msg}\n${usageLine}\n`);
  process.exit(2);
}

const dirs = [];
const positional = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--modules") {
    if (i + 1 >= args.length) usage("--modules needs a directory");
    dirs.push(args[++i]);
  } else if (args[i].startsWith("--modules=")) {
    dirs.push(args[i].slice("--modules=".length));
  } else {
    positional.push(args[i]);
  }
}
if (positional.length < 3) usage("want FPS, FRAMES and at least one file");
const fps = Number(positional[0]);
if (!(fps > 0) || !Number.isFinite(fps)) usage(`FPS ${positional[0]}: want a positive number`);
const frames = positional[1].split(",").map((s) => Number(s));
if (frames.some((f) => !Number.isInteger(f) || f < 0)) usage(`FRAMES ${positional[1]}: want a comma list of frame numbers (0 or more)`);
const files = positional.slice(2);

if (process.env.GALLOP_NPM_DIR) dirs.push(process.env.GALLOP_NPM_DIR);
for (const d of (process.env.NODE_PATH || "").split(path.delimiter)) {
  if (d) dirs.push(d);
}
dirs.push(path.join(here, "..", ".cache", "npm", "node_modules"));
const found = dirs.find((d) => existsSync(path.join(d, "three", "package.json")));
if (!found) {
  process.stderr.write(
    `three-positions: module three not found in ${dirs.join(", ")}\n` +
      `install it with: npm install --prefix ${path.join(here, "..", ".cache", "npm")} three@0.187.0\n`,
  );
  process.exit(1);
}
// The same file the package's "import" export names, so that GLTFLoader's
// own `import ... from "three"` (resolved by Node from the package's
// folder) is this very module instance.
const threeDir = path.resolve(found, "three");
const THREE = await import(pathToFileURL(path.join(threeDir, "build", "three.module.js")).href);
const { GLTFLoader } = await import(pathToFileURL(path.join(threeDir, "examples", "jsm", "loaders", "GLTFLoader.js")).href);
const version = JSON.parse(await readFile(path.join(threeDir, "package.json"), "utf8")).version;

// Browser globals. GLTFLoader touches navigator (to sniff Safari and
// Firefox) and createImageBitmap (to pick ImageBitmapLoader) only behind
// typeof checks, so without them it picks TextureLoader; self.URL, Blob
// and the DOM's <img> only when it decodes a texture, which Gallop's
// exports do not carry (a file with one fails here, naming the missing
// global, rather than giving wrong positions). The one stub needed:
// three's FileLoader, which GLTFLoader fetches a .gltf's buffers with
// (data: URIs included), reports its progress while reading the response
// as a DOM ProgressEvent, which Node 20 lacks; without it the read throws
// outside any promise and kills the process.
if (typeof globalThis.ProgressEvent === "undefined") {
  globalThis.ProgressEvent = class ProgressEvent extends Event {
    constructor(type, init = {}) {
      super(type);
      this.lengthComputable = init.lengthComputable ?? false;
      this.loaded = init.loaded ?? 0;
      this.total = init.total ?? 0;
    }
  };
}

// load returns the parsed glTF of file: a .glb as it is; a .gltf with its
// relative buffer URIs turned into data URIs read from disk beside it,
// since three's FileLoader fetches and Node's fetch reads no file: URLs.
async function load(file) {
  const bytes = await readFile(file);
  let data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const dir = path.dirname(path.resolve(file));
  if (!file.toLowerCase().endsWith(".glb")) {
    const json = JSON.parse(bytes.toString("utf8"));
    for (const b of json.buffers || []) {
      if (b.uri && !b.uri.startsWith("data:")) {
        const raw = await readFile(path.resolve(dir, decodeURIComponent(b.uri)));
        b.uri = "data:application/octet-stream;base64," + raw.toString("base64");
      }
    }
    data = JSON.stringify(json);
  }
  const loader = new GLTFLoader();
  return loader.parseAsync(data, dir + path.sep);
}

// round keeps 9 significant digits: float32 data evaluated in float64
// carries no more, and the lines stay short.
const round = (x) => Number(x.toPrecision(9));

function positions(file, gltf) {
  const scene = gltf.scene;
  const meshes = [];
  scene.traverse((o) => {
    if (o.isMesh) meshes.push(o);
  });
  const mixer = new THREE.AnimationMixer(scene);
  const actions = gltf.animations.map((clip) => {
    const a = mixer.clipAction(clip);
    a.setLoop(THREE.LoopOnce, 1);
    a.clampWhenFinished = true;
    return a.play();
  });
  const out = {
    file,
    three: version,
    meshes: meshes.map((m) => m.name),
    vertices: meshes.map((m) => m.geometry.attributes.position.count),
    skinned: meshes.map((m) => m.isSkinnedMesh === true),
    targets: meshes.map((m) => (m.geometry.morphAttributes.position || []).length),
    active_targets: meshes.map(() => 0),
    influences: meshes.map(() => 0),
    ignored_influences: meshes.map(() => 0),
    clips: gltf.animations.map((c) => ({ name: c.name, duration: c.duration, tracks: c.tracks.length })),
    rest: [],
    frames: [],
  };
  meshes.forEach((m, k) => {
    const g = m.geometry;
    const pos = g.attributes.position;
    for (let i = 0; i < pos.count; i++) out.rest.push([round(pos.getX(i)), round(pos.getY(i)), round(pos.getZ(i))]);
    if (m.isSkinnedMesh) {
      const w = g.attributes.skinWeight;
      for (let i = 0; i < w.count; i++) {
        let n = 0;
        for (let c = 0; c < 4; c++) if (w.getComponent(i, c) !== 0) n++;
        out.influences[k] = Math.max(out.influences[k], n);
      }
    }
    // GLTFLoader keeps attributes it does not know under their glTF name
    // in lower case: weights_1, weights_2, ... are there, unused.
    for (const [name, attr] of Object.entries(g.attributes)) {
      if (!/^weights_[1-9]/.test(name)) continue;
      for (let i = 0; i < attr.count; i++) {
        let any = false;
        for (let c = 0; c < attr.itemSize; c++) any ||= attr.getComponent(i, c) !== 0;
        if (any) out.ignored_influences[k]++;
      }
    }
  });
  const v = new THREE.Vector3();
  const d = new THREE.Vector3();
  for (const f of frames) {
    for (const a of actions) a.reset(); // a clamped action stays paused at its end
    mixer.setTime(f / fps);
    scene.updateMatrixWorld(true);
    const frame = [];
    meshes.forEach((m, k) => {
      const g = m.geometry;
      const pos = g.attributes.position;
      const morphs = g.morphAttributes.position || [];
      const infl = m.morphTargetInfluences || [];
      const active = [];
      for (let t = 0; t < morphs.length; t++) if (infl[t] !== 0) active.push(t);
      out.active_targets[k] = Math.max(out.active_targets[k], active.length);
      for (let i = 0; i < pos.count; i++) {
        v.fromBufferAttribute(pos, i);
        if (active.length > 0) {
          let x = 0, y = 0, z = 0;
          for (const t of active) {
            d.fromBufferAttribute(morphs[t], i);
            if (!g.morphTargetsRelative) d.sub(v);
            x += infl[t] * d.x;
            y += infl[t] * d.y;
            z += infl[t] * d.z;
          }
          v.x += x;
          v.y += y;
          v.z += z;
        }
        if (m.isSkinnedMesh) m.applyBoneTransform(i, v);
        v.applyMatrix4(m.matrixWorld);
        frame.push([round(v.x), round(v.y), round(v.z)]);
      }
    });
    out.frames.push(frame);
  }
  return out;
}

let failed = false;
for (const file of files) {
  let line;
  try {
    line = positions(file, await load(file));
  } catch (err) {
    failed = true;
    line = { file, error: String(err && err.stack ? err.stack : err) };
  }
  process.stdout.write("GALLOP " + JSON.stringify(line) + "\n");
}
// Not process.exit: that can end the process before a long line has gone
// through the pipe.
process.exitCode = failed ? 1 : 0;
