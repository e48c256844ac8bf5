package bvh

// Query calls fn with every triangle of t whose bounding box overlaps box
// (closed boxes: touching counts), until fn returns false. Triangles are
// visited in an unspecified order, each at most once. It is the broad phase
// of collision detection: widen box with Expand for a contact margin. Query
// itself does not allocate.
func (t *Tree) Query(box AABB, fn func(triangle int) bool) {
	if len(t.nodes) == 0 || !t.nodes[0].box.Overlaps(box) {
		return
	}
	var stack [stackSize]int32
	sp := 0
	ni := int32(0)
	for {
		n := &t.nodes[ni]
		if n.count > 0 {
			for s := n.start; s < n.start+n.count; s++ {
				if triangleBox(&t.verts[s]).Overlaps(box) && !fn(int(t.ids[s])) {
					return
				}
			}
		} else {
			a, b := n.start, n.start+1
			inA, inB := t.nodes[a].box.Overlaps(box), t.nodes[b].box.Overlaps(box)
			if inA {
				if inB {
					stack[sp] = b
					sp++
				}
				ni = a
				continue
			}
			if inB {
				ni = b
				continue
			}
		}
		if sp == 0 {
			return
		}
		sp--
		ni = stack[sp]
	}
}
