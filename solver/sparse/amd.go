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
func amdOrder(n int, xadj, adjncy []int, dense int) []int {
	if n == 0 {
		return []int{}
	}
	nnz := xadj[n]
	iw := make([]int, nnz+nnz/5+2*n+16)
	copy(iw, adjncy[:nnz])
	pfree := nnz

	pe := make([]int, n)
	ln := make([]int, n)
	elen := make([]int, n)
	nv := make([]int, n)
	degree := make([]int, n)
	w := make([]int, n)
	state := make([]int8, n)
	dhead := make([]int, n+1)
	dnext := make([]int, n)
	dprev := make([]int, n)
	hhead := make([]int, n)
	hnext := make([]int, n)
	smark := make([]int, n)
	var hbuf []int
	for i := range dhead {
		dhead[i] = -1
	}
	for i := range hhead {
		hhead[i] = -1
	}
	insert := func(i, d int) {
		dprev[i] = -1
		dnext[i] = dhead[d]
		if dhead[d] >= 0 {
			dprev[dhead[d]] = i
		}
		dhead[d] = i
	}
	remove := func(i int) {
		if dprev[i] >= 0 {
			dnext[dprev[i]] = dnext[i]
		} else {
			dhead[degree[i]] = dnext[i]
		}
		if dnext[i] >= 0 {
			dprev[dnext[i]] = dprev[i]
		}
	}

	ndense := 0
	for i := 0; i < n; i++ {
		pe[i] = xadj[i]
		ln[i] = xadj[i+1] - xadj[i]
		nv[i] = 1
		w[i] = 1
		if dense > 0 && ln[i] > dense {
			state[i] = amdDense
			nv[i] = 0
			ndense++
		}
	}
	for i := 0; i < n; i++ {
		if state[i] == amdDense {
			pe[i], ln[i] = -1, 0
			continue
		}
		d := 0
		for _, j := range adjncy[xadj[i]:xadj[i+1]] {
			if state[j] != amdDense {
				d++
			}
		}
		degree[i] = d
		insert(i, d)
	}
	nlive := n - ndense

	// compact moves every live list to the front of iw, in storage order.
	compact := func() {
		for j := 0; j < n; j++ {
			if (state[j] == amdVar || state[j] == amdElem) && ln[j] > 0 {
				first := iw[pe[j]]
				iw[pe[j]] = flip(j)
				pe[j] = first
			}
		}
		dst := 0
		for src := 0; src < pfree; {
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
		pfree = dst
	}

	const wbig = math.MaxInt / 4
	wflg := 2
	stamp := 0 // smark stamps grow across pivots, so marks never need clearing
	mindeg := 0
	nel := 0
	for nel < nlive {
		// Pivot of least approximate degree.
		for dhead[mindeg] < 0 {
			mindeg++
		}
		p := dhead[mindeg]
		remove(p)
		elenp := elen[p]
		nvpiv := nv[p]
		nel += nvpiv
		nv[p] = -nvpiv
		degme := 0

		// The new element Lp = (Ap ∪ ⋃_{e∈Ep} Le) \ p; its variables are
		// flagged by negative nv and leave the degree lists.
		var lstart, llen int
		if elenp == 0 {
			lstart = pe[p]
			q := lstart
			for k := pe[p]; k < pe[p]+ln[p]; k++ {
				i := iw[k]
				nvi := nv[i]
				if nvi <= 0 {
					continue
				}
				degme += nvi
				nv[i] = -nvi
				iw[q] = i
				q++
				remove(i)
			}
			llen = q - lstart
		} else {
			need := ln[p] - elenp
			for k := pe[p]; k < pe[p]+elenp; k++ {
				need += ln[iw[k]]
			}
			need = min(need, nlive)
			if pfree+need > len(iw) {
				compact()
				if pfree+need > len(iw) {
					iw = append(iw, make([]int, pfree+need-len(iw)+n)...)
				}
			}
			lstart = pfree
			q := pfree
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
					i := iw[kk]
					nvi := nv[i]
					if nvi <= 0 {
						continue
					}
					degme += nvi
					nv[i] = -nvi
					iw[q] = i
					q++
					remove(i)
				}
				if e != p {
					pe[e] = flip(p)
					state[e] = amdAbsorbed
					w[e] = 0
				}
			}
			pfree = q
			llen = q - lstart
		}
		pe[p], ln[p], elen[p] = lstart, llen, 0
		state[p] = amdElem
		degree[p] = degme
		w[p] = 1

		// |Le \ Lp| for every element e adjacent to Lp: afterwards
		// w[e] − wflg is that count.
		if wflg > wbig {
			for i := 0; i < n; i++ {
				if w[i] != 0 {
					w[i] = 1
				}
			}
			wflg = 2
		}
		lemax := 0
		for k := lstart; k < lstart+llen; k++ {
			i := iw[k]
			nvi := -nv[i]
			for kk := pe[i]; kk < pe[i]+elen[i]; kk++ {
				e := iw[kk]
				if we := w[e]; we >= wflg {
					w[e] = we - nvi
				} else if we != 0 {
					w[e] = degree[e] + wflg - nvi
					lemax = max(lemax, degree[e])
				}
			}
		}

		// Degree update, list pruning, mass elimination and hashing.
		hused := hbuf[:0]
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
				if dext := we - wflg; dext > 0 {
					deg += dext
					iw[pn] = e
					pn++
					hash += e
				} else {
					// Le ⊆ Lp: aggressive absorption.
					pe[e] = flip(p)
					state[e] = amdAbsorbed
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
				// Only element p is left: i is indistinguishable from
				// the pivot and is eliminated with it.
				pe[i] = flip(p)
				nvi := -nv[i]
				degme -= nvi
				nvpiv += nvi
				nel += nvi
				nv[i] = 0
				state[i] = amdMerged
				continue
			}
			degree[i] = min(degree[i], deg)
			// Put p first in Ei (the pruning freed at least one slot: p
			// was in Ai, or an element of Ep was in Ei).
			if pn > p3 {
				iw[pn] = iw[p3]
			}
			if p3 > p1 {
				iw[p3] = iw[p1]
			}
			iw[p1] = p
			ln[i] = pn - p1 + 1
			elen[i] = p3 - p1 + 1
			h := hash % n
			if hhead[h] < 0 {
				hused = append(hused, h)
			}
			hnext[i] = hhead[h]
			hhead[h] = i
		}
		degree[p] = degme
		wflg += lemax + 1
		hbuf = hused

		// Supervariable detection: variables of one hash bucket with
		// identical (pruned) lists are merged.
		for _, h := range hused {
			for i := hhead[h]; i >= 0; i = hnext[i] {
				if nv[i] == 0 {
					continue
				}
				stamp++
				for kk := pe[i] + 1; kk < pe[i]+ln[i]; kk++ {
					smark[iw[kk]] = stamp
				}
				prev := i
				for j := hnext[i]; j >= 0; j = hnext[j] {
					same := ln[j] == ln[i] && elen[j] == elen[i]
					for kk := pe[j] + 1; same && kk < pe[j]+ln[j]; kk++ {
						same = smark[iw[kk]] == stamp
					}
					if same {
						pe[j] = flip(i)
						nv[i] += nv[j]
						nv[j] = 0
						state[j] = amdMerged
						hnext[prev] = hnext[j]
					} else {
						prev = j
					}
				}
			}
			hhead[h] = -1
		}
		// Finalise degrees and compact Lp to its principal variables.
		q := lstart
		for k := lstart; k < lstart+llen; k++ {
			i := iw[k]
			nvi := -nv[i]
			if nvi <= 0 {
				continue
			}
			nv[i] = nvi
			d := min(degree[i]+degme-nvi, nlive-nel-nvi)
			degree[i] = d
			insert(i, d)
			mindeg = min(mindeg, d)
			iw[q] = i
			q++
		}
		ln[p] = q - lstart
		nv[p] = nvpiv
		if ln[p] == 0 {
			pe[p] = -1
			state[p] = amdRoot
			w[p] = 0
		}
	}

	return amdPostorder(n, pe, state)
}

// amdPostorder turns the assembly tree left by amdOrder into a permutation:
// elements in a depth-first postorder of the tree, each followed by the
// variables merged into it, then the dense variables.
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
	// Children lists of the element tree, and member lists.
	chead := make([]int, n)
	cnext := make([]int, n)
	mhead := make([]int, n)
	mnext := make([]int, n)
	for i := range chead {
		chead[i], mhead[i] = -1, -1
	}
	for j := n - 1; j >= 0; j-- {
		switch state[j] {
		case amdAbsorbed:
			par := flip(pe[j])
			cnext[j] = chead[par]
			chead[par] = j
		case amdMerged:
			r := rep(j)
			mnext[j] = mhead[r]
			mhead[r] = j
		}
	}
	perm := make([]int, 0, n)
	stack := make([]int, 0, 64)
	for r := 0; r < n; r++ {
		if state[r] != amdRoot && state[r] != amdElem {
			continue
		}
		// Iterative postorder: a node is emitted after its children.
		stack = append(stack, r)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			if c := chead[e]; c >= 0 {
				chead[e] = cnext[c]
				stack = append(stack, c)
				continue
			}
			stack = stack[:len(stack)-1]
			perm = append(perm, e)
			for j := mhead[e]; j >= 0; j = mnext[j] {
				perm = append(perm, j)
			}
		}
	}
	for j := 0; j < n; j++ {
		if state[j] == amdDense {
			perm = append(perm, j)
		}
	}
	return perm
}
