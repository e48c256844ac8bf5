package sparse

import "math"

// This file implements the approximate minimum degree ordering of Amestoy,
// Davis and Duff, "An approximate minimum degree ordering algorithm", SIAM
// J. Matrix Anal. Appl. 17(4), 1996 (written from the paper and from
// Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, ch. 7).
//
// The elimination is simulated on the quotient graph: eliminated pivots
// become elements, each holding the list Le of the variables its clique
// covers, and a variable i keeps a list of the elements Ei it belongs to
// followed by the variables Ai it is still directly adjacent to. Instead of
// the exact external degree, each variable carries the upper bound of the
// paper's Eq. (4),
//
//	d̄ᵢ = min(n − k, d̄ᵢ(old) + |Lp \ i|, |Aᵢ \ i| + |Lp \ i| + Σ_{e∈Eᵢ\p} |Le \ Lp|),
//
// computed in time proportional to the size of the lists involved, with the
// set differences |Le \ Lp| found in one scan. Indistinguishable variables
// are merged into supervariables (found by hashing), variables whose only
// element is the new one are eliminated with the pivot (mass elimination),
// elements adjacent to the pivot are absorbed into the new element (element
// absorption), and so are elements found to be subsets of it while degrees
// are updated (aggressive absorption). Rows denser than the Options.Dense
// threshold are removed before the ordering and placed last.

// Node states during AMD.
const (
	amdVar      = iota // principal variable
	amdElem            // element, alive
	amdAbsorbed        // element absorbed into another (pe holds flip(parent))
	amdRoot            // element that covers no variable: a root of the assembly tree
	amdMerged          // variable merged into a supervariable or mass-eliminated (pe holds flip(rep))
	amdDense           // dense variable, ordered last
)

func flip(i int) int { return -i - 2 }

// amdOrder returns a fill-reducing ordering of the graph with n nodes whose
// neighbours of node j are adjncy[xadj[j]:xadj[j+1]] (symmetric, no self
// loops, no duplicates): perm[k] is the node eliminated k-th. dense is the
// degree above which a node is considered dense (≤ 0: no dense nodes).
//
// Each step of the elimination runs the paper's phases in turn: pivot
// selection, construction of the new element, the external degrees
// |Le \ Lp| of the elements next to it, the degree update (with list
// pruning, mass elimination and aggressive absorption), supervariable
// detection, and the final degrees. amdPostorder then turns the assembly
// tree into the permutation.
func amdOrder(n int, xadj, adjncy []int, dense int) []int {
	if n == 0 {
		return []int{}
	}
	a := newAMD(n, xadj, adjncy, dense)
	for a.nel < a.nlive {
		p := a.pivot()
		lstart, llen, degme, nvpiv := a.element(p)
		lemax := a.externalDegrees(lstart, llen)
		degme, nvpiv, hused := a.updateDegrees(p, lstart, llen, degme, nvpiv)
		a.wflg += lemax + 1
		a.supervariables(hused)
		a.finish(p, lstart, llen, degme, nvpiv)
	}
	return amdPostorder(n, a.pe, a.state)
}

// amd is the state of one ordering: the quotient graph in iw (node j's
// list at iw[pe[j]:pe[j]+ln[j]], its elements first, elen[j] of them), the
// supervariable sizes nv (negated while a variable is in the new element),
// approximate degrees kept in doubly linked degree lists, the w flags
// that count |Le \ Lp|, and the hash buckets of supervariable detection.
type amd struct {
	n     int
	iw    []int
	pfree int // first free slot of iw

	pe, ln, elen, nv, degree, w []int
	state                       []int8

	dhead, dnext, dprev []int // degree lists
	hhead, hnext, smark []int // hash buckets and the marks comparing lists
	hbuf                []int // buckets used in this step

	wflg   int // w[e] ≥ wflg marks an element whose |Le \ Lp| is being counted
	stamp  int // smark stamps grow across pivots, so marks never need clearing
	mindeg int // no degree list below it is non-empty
	nel    int // variables eliminated so far
	nlive  int // variables that are not dense
}

// wbig bounds wflg before the w flags are reset.
const wbig = math.MaxInt / 4

// newAMD sets up the quotient graph of the input graph: every node a
// variable with its adjacency list, dense nodes set aside, and the
// degrees (neighbours that are not dense) in the degree lists.
func newAMD(n int, xadj, adjncy []int, dense int) *amd {
	nnz := xadj[n]
	a := &amd{n: n, iw: make([]int, nnz+nnz/5+2*n+16), pfree: nnz, wflg: 2,
		pe: make([]int, n), ln: make([]int, n), elen: make([]int, n), nv: make([]int, n),
		degree: make([]int, n), w: make([]int, n), state: make([]int8, n),
		dhead: make([]int, n+1), dnext: make([]int, n), dprev: make([]int, n),
		hhead: make([]int, n), hnext: make([]int, n), smark: make([]int, n)}
	copy(a.iw, adjncy[:nnz])
	for i := range a.dhead {
		a.dhead[i] = -1
	}
	for i := range a.hhead {
		a.hhead[i] = -1
	}
	ndense := 0
	for i := 0; i < n; i++ {
		a.pe[i] = xadj[i]
		a.ln[i] = xadj[i+1] - xadj[i]
		a.nv[i] = 1
		a.w[i] = 1
		if dense > 0 && a.ln[i] > dense {
			a.state[i] = amdDense
			a.nv[i] = 0
			ndense++
		}
	}
	for i := 0; i < n; i++ {
		if a.state[i] == amdDense {
			a.pe[i], a.ln[i] = -1, 0
			continue
		}
		d := 0
		for _, j := range adjncy[xadj[i]:xadj[i+1]] {
			if a.state[j] != amdDense {
				d++
			}
		}
		a.degree[i] = d
		a.insert(i, d)
	}
	a.nlive = n - ndense
	return a
}

// insert puts variable i at the head of degree list d.
func (a *amd) insert(i, d int) {
	a.dprev[i] = -1
	a.dnext[i] = a.dhead[d]
	if a.dhead[d] >= 0 {
		a.dprev[a.dhead[d]] = i
	}
	a.dhead[d] = i
}

// remove takes variable i out of its degree list.
func (a *amd) remove(i int) {
	if a.dprev[i] >= 0 {
		a.dnext[a.dprev[i]] = a.dnext[i]
	} else {
		a.dhead[a.degree[i]] = a.dnext[i]
	}
	if a.dnext[i] >= 0 {
		a.dprev[a.dnext[i]] = a.dprev[i]
	}
}

// compact moves every live list to the front of iw, in storage order.
func (a *amd) compact() {
	iw, pe, ln := a.iw, a.pe, a.ln
	for j := 0; j < a.n; j++ {
		if (a.state[j] == amdVar || a.state[j] == amdElem) && ln[j] > 0 {
			first := iw[pe[j]]
			iw[pe[j]] = flip(j)
			pe[j] = first
		}
	}
	dst := 0
	for src := 0; src < a.pfree; {
		if iw[src] >= 0 {
			src++
			continue
		}
		j := flip(iw[src])
		first := pe[j]
		pe[j] = dst
		iw[dst] = first
		copy(iw[dst+1:dst+ln[j]], iw[src+1:src+ln[j]])
		dst += ln[j]
		src += ln[j]
	}
	a.pfree = dst
}

// pivot selects the variable of least approximate degree and takes it
// out of its degree list.
func (a *amd) pivot() int {
	for a.dhead[a.mindeg] < 0 {
		a.mindeg++
	}
	p := a.dhead[a.mindeg]
	a.remove(p)
	return p
}

// element eliminates pivot p: it builds the new element
// Lp = (Ap ∪ ⋃_{e∈Ep} Le) \ p at iw[lstart:lstart+llen], flags its
// variables by negative nv and takes them out of the degree lists,
// absorbs the elements of Ep, and returns the element's list, its degree
// (the variables it covers, counted with their weights) and the pivot's
// supervariable size.
func (a *amd) element(p int) (lstart, llen, degme, nvpiv int) {
	iw, pe, ln, nv := a.iw, a.pe, a.ln, a.nv
	elenp := a.elen[p]
	nvpiv = nv[p]
	a.nel += nvpiv
	nv[p] = -nvpiv
	take := func(i, q int) int {
		nvi := nv[i]
		if nvi <= 0 {
			return q
		}
		degme += nvi
		nv[i] = -nvi
		a.iw[q] = i
		a.remove(i)
		return q + 1
	}
	if elenp == 0 {
		// Only variables: Lp is built in place over Ap.
		lstart = pe[p]
		q := lstart
		for k := pe[p]; k < pe[p]+ln[p]; k++ {
			q = take(iw[k], q)
		}
		llen = q - lstart
	} else {
		need := ln[p] - elenp
		for k := pe[p]; k < pe[p]+elenp; k++ {
			need += ln[iw[k]]
		}
		need = min(need, a.nlive)
		if a.pfree+need > len(a.iw) {
			a.compact()
			if a.pfree+need > len(a.iw) {
				a.iw = append(a.iw, make([]int, a.pfree+need-len(a.iw)+a.n)...)
			}
			iw = a.iw
		}
		lstart = a.pfree
		q := a.pfree
		for k := pe[p]; k <= pe[p]+elenp; k++ {
			var lo, hi, e int
			if k < pe[p]+elenp {
				e = iw[k]
				lo, hi = pe[e], pe[e]+ln[e]
			} else {
				e = p
				lo, hi = pe[p]+elenp, pe[p]+ln[p]
			}
			for kk := lo; kk < hi; kk++ {
				q = take(iw[kk], q)
			}
			if e != p {
				pe[e] = flip(p)
				a.state[e] = amdAbsorbed
				a.w[e] = 0
			}
		}
		a.pfree = q
		llen = q - lstart
	}
	pe[p], ln[p], a.elen[p] = lstart, llen, 0
	a.state[p] = amdElem
	a.degree[p] = degme
	a.w[p] = 1
	return lstart, llen, degme, nvpiv
}

// externalDegrees counts |Le \ Lp| for every element e adjacent to the
// new element's variables iw[lstart:lstart+llen]: afterwards w[e] − wflg
// is that count. It returns the largest |Le| seen, by which wflg must
// grow before the next step.
func (a *amd) externalDegrees(lstart, llen int) (lemax int) {
	iw, pe, w := a.iw, a.pe, a.w
	if a.wflg > wbig {
		for i := 0; i < a.n; i++ {
			if w[i] != 0 {
				w[i] = 1
			}
		}
		a.wflg = 2
	}
	for k := lstart; k < lstart+llen; k++ {
		i := iw[k]
		nvi := -a.nv[i]
		for kk := pe[i]; kk < pe[i]+a.elen[i]; kk++ {
			e := iw[kk]
			if we := w[e]; we >= a.wflg {
				w[e] = we - nvi
			} else if we != 0 {
				w[e] = a.degree[e] + a.wflg - nvi
				lemax = max(lemax, a.degree[e])
			}
		}
	}
	return lemax
}

// updateDegrees bounds the degree of every variable i of Lp by Eq. (4),
// prunes its lists (elements that are subsets of Lp are absorbed,
// variables of Lp leave Ai), puts p first in Ei, eliminates with the
// pivot the variables whose only element is p (mass elimination, which
// changes degme and nvpiv), and hashes the others' lists into buckets for
// supervariable detection, returning the buckets used.
func (a *amd) updateDegrees(p, lstart, llen, degme, nvpiv int) (int, int, []int) {
	iw, pe, ln, elen, nv, w := a.iw, a.pe, a.ln, a.elen, a.nv, a.w
	hused := a.hbuf[:0]
	for k := lstart; k < lstart+llen; k++ {
		i := iw[k]
		p1 := pe[i]
		p2 := p1 + elen[i]
		pn := p1
		deg, hash := 0, 0
		for kk := p1; kk < p2; kk++ {
			e := iw[kk]
			we := w[e]
			if we == 0 {
				continue
			}
			if dext := we - a.wflg; dext > 0 {
				deg += dext
				iw[pn] = e
				pn++
				hash += e
			} else {
				// Le ⊆ Lp: aggressive absorption.
				pe[e] = flip(p)
				a.state[e] = amdAbsorbed
				w[e] = 0
			}
		}
		p3 := pn
		for kk := p2; kk < p1+ln[i]; kk++ {
			j := iw[kk]
			if nvj := nv[j]; nvj > 0 {
				deg += nvj
				iw[pn] = j
				pn++
				hash += j
			}
		}
		if p3 == p1 && pn == p1 {
			// Only element p is left: i is indistinguishable from the
			// pivot and is eliminated with it.
			pe[i] = flip(p)
			nvi := -nv[i]
			degme -= nvi
			nvpiv += nvi
			a.nel += nvi
			nv[i] = 0
			a.state[i] = amdMerged
			continue
		}
		a.degree[i] = min(a.degree[i], deg)
		// Put p first in Ei (the pruning freed at least one slot: p was
		// in Ai, or an element of Ep was in Ei).
		if pn > p3 {
			iw[pn] = iw[p3]
		}
		if p3 > p1 {
			iw[p3] = iw[p1]
		}
		iw[p1] = p
		ln[i] = pn - p1 + 1
		elen[i] = p3 - p1 + 1
		h := hash % a.n
		if a.hhead[h] < 0 {
			hused = append(hused, h)
		}
		a.hnext[i] = a.hhead[h]
		a.hhead[h] = i
	}
	a.degree[p] = degme
	a.hbuf = hused
	return degme, nvpiv, hused
}

// supervariables merges the variables of each hash bucket used whose
// pruned lists are identical into one supervariable, and empties the
// buckets.
func (a *amd) supervariables(hused []int) {
	iw, pe, ln, elen, nv := a.iw, a.pe, a.ln, a.elen, a.nv
	for _, h := range hused {
		for i := a.hhead[h]; i >= 0; i = a.hnext[i] {
			if nv[i] == 0 {
				continue
			}
			a.stamp++
			for kk := pe[i] + 1; kk < pe[i]+ln[i]; kk++ {
				a.smark[iw[kk]] = a.stamp
			}
			prev := i
			for j := a.hnext[i]; j >= 0; j = a.hnext[j] {
				same := ln[j] == ln[i] && elen[j] == elen[i]
				for kk := pe[j] + 1; same && kk < pe[j]+ln[j]; kk++ {
					same = a.smark[iw[kk]] == a.stamp
				}
				if same {
					pe[j] = flip(i)
					nv[i] += nv[j]
					nv[j] = 0
					a.state[j] = amdMerged
					a.hnext[prev] = a.hnext[j]
				} else {
					prev = j
				}
			}
		}
		a.hhead[h] = -1
	}
}

// finish sets the final degrees of Lp's principal variables, puts them
// back in the degree lists, compacts Lp to them, and records the pivot's
// supervariable size; an element that covers no variable is a root of
// the assembly tree.
func (a *amd) finish(p, lstart, llen, degme, nvpiv int) {
	iw, nv := a.iw, a.nv
	q := lstart
	for k := lstart; k < lstart+llen; k++ {
		i := iw[k]
		nvi := -nv[i]
		if nvi <= 0 {
			continue
		}
		nv[i] = nvi
		d := min(a.degree[i]+degme-nvi, a.nlive-a.nel-nvi)
		a.degree[i] = d
		a.insert(i, d)
		a.mindeg = min(a.mindeg, d)
		iw[q] = i
		q++
	}
	a.ln[p] = q - lstart
	nv[p] = nvpiv
	if a.ln[p] == 0 {
		a.pe[p] = -1
		a.state[p] = amdRoot
		a.w[p] = 0
	}
}

// amdPostorder turns the assembly tree left by amdOrder into a permutation:
// elements in a depth-first postorder of the tree (postorder, shared with
// the elimination tree), each followed by the variables merged into it,
// then the dense variables.
func amdPostorder(n int, pe []int, state []int8) []int {
	// Representative element of every merged variable, with path
	// compression.
	rep := func(j int) int {
		r := j
		for state[r] == amdMerged {
			r = flip(pe[r])
		}
		for state[j] == amdMerged {
			next := flip(pe[j])
			pe[j] = flip(r)
			j = next
		}
		return r
	}
	// The element tree (absorbed elements under the element that absorbed
	// them; variables are not in it), and member lists.
	parent := make([]int, n)
	mhead := make([]int, n)
	mnext := make([]int, n)
	for j := range parent {
		mhead[j] = -1
		switch state[j] {
		case amdRoot, amdElem:
			parent[j] = -1
		case amdAbsorbed:
			parent[j] = flip(pe[j])
		default:
			parent[j] = notInForest
		}
	}
	for j := n - 1; j >= 0; j-- {
		if state[j] == amdMerged {
			r := rep(j)
			mnext[j] = mhead[r]
			mhead[r] = j
		}
	}
	perm := make([]int, 0, n)
	for _, e := range postorder(parent) {
		perm = append(perm, e)
		for j := mhead[e]; j >= 0; j = mnext[j] {
			perm = append(perm, j)
		}
	}
	for j := 0; j < n; j++ {
		if state[j] == amdDense {
			perm = append(perm, j)
		}
	}
	return perm
}
