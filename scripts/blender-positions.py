# Reads glTF files with Blender's own importer, headless, and prints as
# one JSON line per file the world positions of the first mesh's vertices
# at the given frames, as Blender evaluates them (armature and shape keys),
# and the same with the shape keys muted (the armature alone), with the
# number of armatures, and of bones and root bones in each:
#   blender -b --factory-startup --python blender-positions.py -- FPS FRAMES FILE...
# FRAMES is a comma list of Blender frames; the scene runs at FPS before
# import, so that key i of a file at FPS lands on frame i (measured:
# TestRigSkeleton matches key i at frame i to 1e-6). Gallop's
# tests use it to check that what Gallop writes plays in Blender as in
# Gallop (gallop/assets/gltftest.Blender).
import json
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF add-on still uses numpy.bool

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
fps, frames, files = int(args[0]), [int(f) for f in args[1].split(",")], args[2:]


def positions(scene, mesh, frame, mute):
    keys = mesh.data.shape_keys.key_blocks if mesh.data.shape_keys else []
    for kb in keys:
        kb.mute = mute
    scene.frame_set(frame)
    ev = mesh.evaluated_get(bpy.context.evaluated_depsgraph_get())
    m = ev.to_mesh()
    out = [list(ev.matrix_world @ v.co) for v in m.vertices]
    ev.to_mesh_clear()
    for kb in keys:
        kb.mute = False
    return out


for path in files:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.scene.render.fps = fps
    bpy.ops.import_scene.gltf(filepath=path)
    scene = bpy.context.scene
    mesh = [o for o in scene.objects if o.type == "MESH"][0]
    print("GALLOP " + json.dumps({
        "file": path,
        "shape_keys": len(mesh.data.shape_keys.key_blocks) if mesh.data.shape_keys else 0,
        "armatures": sum(1 for o in scene.objects if o.type == "ARMATURE"),
        "bones": [len(o.data.bones) for o in scene.objects if o.type == "ARMATURE"],
        "bone_roots": [sum(1 for b in o.data.bones if b.parent is None) for o in scene.objects if o.type == "ARMATURE"],
        "frames": [positions(scene, mesh, f, False) for f in frames],
        "muted": [positions(scene, mesh, f, True) for f in frames],
    }))
