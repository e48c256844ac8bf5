package sparse

// graph is the adjacency structure of a symmetric pattern without its
// diagonal: the neighbours of node j are adj[ptr[j]:ptr[j+1]].
type graph struct {
	n   int
	ptr []int
	adj []int
}

// lowerGraph returns the graph of the symmetric matrix whose lower triangle
// is the part of a on or below the diagonal; entries above it are ignored.
func lowerGraph(a *CSC) graph {
	n := a.Cols
	g := graph{n: n, ptr: make([]int, n+1)}
	for j := 0; j < n; j++ {
		for p := a.lowerStart(j); p < a.ColPtr[j+1]; p++ {
			if i := a.RowIdx[p]; i != j {
				g.ptr[i+1]++
				g.ptr[j+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		g.ptr[j+1] += g.ptr[j]
	}
	g.adj = make([]int, g.ptr[n])
	next := make([]int, n)
	copy(next, g.ptr[:n])
	for j := 0; j < n; j++ {
		for p := a.lowerStart(j); p < a.ColPtr[j+1]; p++ {
			if i := a.RowIdx[p]; i != j {
				g.adj[next[i]] = j
				next[i]++
				g.adj[next[j]] = i
				next[j]++
			}
		}
	}
	return g
}

// etree returns the elimination tree of the matrix P·A·Pᵀ, where A has the
// pattern of g and pinv is the inverse permutation (pinv[perm[k]] = k):
// parent[k] is the parent of column k, −1 for a root. It is Liu's
// algorithm with path compression (Liu, "A compact row storage scheme for
// Cholesky factors using elimination trees", ACM TOMS 12, 1986; Davis 2006,
// §4.1): nearly O(nnz(A)) time.
func etree(g graph, perm, pinv []int) []int {
	n := g.n
	parent := make([]int, n)
	anc := make([]int, n)
	for k := 0; k < n; k++ {
		parent[k], anc[k] = -1, -1
		for _, nb := range g.adj[g.ptr[perm[k]]:g.ptr[perm[k]+1]] {
			// Climb from every earlier neighbour i to the root of its
			// current subtree, pointing the path at k on the way.
			for i := pinv[nb]; i < k; {
				next := anc[i]
				anc[i] = k
				if next < 0 {
					parent[i] = k
					break
				}
				i = next
			}
		}
	}
	return parent
}

// notInForest is the parent of a node that postorder leaves out.
const notInForest = -2

// postorder returns a depth-first postorder of the forest parent: post[k] is
// the k-th node visited, each node after its children. Roots have parent
// −1 and are taken in increasing order, children too; nodes whose parent
// is notInForest are left out. The elimination tree and AMD's assembly
// tree are ordered with it.
func postorder(parent []int) []int {
	n := len(parent)
	head := make([]int, n)
	next := make([]int, n)
	for i := range head {
		head[i] = -1
	}
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p >= 0 {
			next[j] = head[p]
			head[p] = j
		}
	}
	post := make([]int, 0, n)
	stack := make([]int, 0, 64)
	for r := 0; r < n; r++ {
		if parent[r] != -1 {
			continue
		}
		stack = append(stack, r)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			if c := head[j]; c >= 0 {
				head[j] = next[c]
				stack = append(stack, c)
				continue
			}
			stack = stack[:len(stack)-1]
			post = append(post, j)
		}
	}
	return post
}

// colCounts returns the number of nonzeros in each column of the Cholesky
// factor L of C = P·A·Pᵀ (diagonal included), given the graph of A, the
// permutation and the elimination tree of C, which must be postordered
// (parent[j] > j). It is the algorithm of Gilbert, Ng and Peyton ("An
// efficient algorithm to compute row and column counts for sparse Cholesky
// factorization", SIMAX 15(4), 1994), as presented in Davis 2006, §4.5:
//
// column j of L holds row i exactly when j lies in the row subtree of i, the
// subtree of the etree spanned by the paths from each k < i with C[i,k] ≠ 0
// up to i. Counting, for each node j, the row subtrees that contain it is
// done with weights δ summed over subtrees: +1 at each leaf of each row
// subtree, −1 at the least common ancestor of consecutive leaves (found with
// a disjoint-set forest, in postorder), −1 at the parent of each row
// subtree's root.
func colCounts(g graph, perm, pinv, parent []int) []int {
	n := g.n
	delta := make([]int, n)
	first := make([]int, n)
	prevNbr := make([]int, n)
	prevLeaf := make([]int, n)
	anc := make([]int, n)
	for j := 0; j < n; j++ {
		first[j], prevNbr[j], prevLeaf[j], anc[j] = -1, -1, -1, j
	}
	for j := 0; j < n; j++ {
		if first[j] < 0 {
			first[j] = j
		}
		if p := parent[j]; p >= 0 {
			delta[p]--
			if first[p] < 0 {
				first[p] = first[j]
			}
		}
	}
	find := func(x int) int {
		for anc[x] != x {
			anc[x] = anc[anc[x]]
			x = anc[x]
		}
		return x
	}
	for j := 0; j < n; j++ {
		for _, nb := range g.adj[g.ptr[perm[j]]:g.ptr[perm[j]+1]] {
			i := pinv[nb]
			if i <= j {
				continue
			}
			if first[j] > prevNbr[i] {
				// j is a leaf of the row subtree of i.
				delta[j]++
				if pl := prevLeaf[i]; pl >= 0 {
					delta[find(pl)]--
				}
				prevLeaf[i] = j
			}
			prevNbr[i] = j
		}
		if p := parent[j]; p >= 0 {
			anc[j] = p
		}
	}
	for i := 0; i < n; i++ {
		if prevNbr[i] < 0 {
			delta[i]++ // row i of L is its diagonal alone: i is its own leaf
		}
	}
	for j := 0; j < n; j++ {
		if p := parent[j]; p >= 0 {
			delta[p] += delta[j]
		}
	}
	return delta
}
