package assets

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// gltfMinZeroFill is the number of values an accessor without a buffer
// view may always have (see readAccessor).
const gltfMinZeroFill = 1 << 12

// readAccessor returns the elements of accessor i as float64 components,
// element after element (count × components values), after checking that
// its type is one of types and that every byte it reads lies inside its
// buffer view and buffer. Normalized integers are mapped to [0, 1] or
// [-1, 1] as the glTF spec says; float components must be finite. Sparse
// accessors are supported. Matrix types other than MAT4 are not.
//
// An accessor without a buffer view (all zeros, possibly patched by sparse
// values) may have as many values as the document's buffers have bytes, or
// gltfMinZeroFill: unlike other accessors its count is bounded by nothing
// in the file, and sparse morph targets, its use, are never larger than
// the positions they modify.
func readAccessor(doc *gltf.Document, i int, types ...gltf.AccessorType) (*gltf.Accessor, []float64, error) {
	if i < 0 || i >= len(doc.Accessors) || doc.Accessors[i] == nil {
		return nil, nil, fmt.Errorf("accessor %d does not exist (%d accessors)", i, len(doc.Accessors))
	}
	a := doc.Accessors[i]
	v, err := decodeAccessor(doc, a, types)
	if err != nil {
		return nil, nil, fmt.Errorf("accessor %d: %w", i, err)
	}
	return a, v, nil
}

func decodeAccessor(doc *gltf.Document, a *gltf.Accessor, types []gltf.AccessorType) ([]float64, error) {
	ok := false
	for _, t := range types {
		ok = ok || a.Type == t
	}
	if !ok {
		return nil, fmt.Errorf("type %v, want %v", a.Type, types)
	}
	if a.Type == gltf.AccessorMat2 || a.Type == gltf.AccessorMat3 {
		return nil, fmt.Errorf("type %v is not supported", a.Type)
	}
	if a.Count < 0 {
		return nil, fmt.Errorf("negative count %d", a.Count)
	}
	nc, cs := a.Type.Components(), a.ComponentType.ByteSize()
	elem := nc * cs
	var out []float64
	if a.BufferView != nil {
		view, stride, err := bufferView(doc, *a.BufferView)
		if err != nil {
			return nil, err
		}
		if stride == 0 {
			stride = elem
		} else if stride < elem {
			return nil, fmt.Errorf("buffer view %d: byteStride %d is less than the element size %d", *a.BufferView, stride, elem)
		}
		if a.ByteOffset < 0 || a.ByteOffset > len(view) {
			return nil, fmt.Errorf("byteOffset %d outside buffer view %d of %d bytes", a.ByteOffset, *a.BufferView, len(view))
		}
		view = view[a.ByteOffset:]
		if a.Count > 0 && (len(view) < elem || (a.Count-1) > (len(view)-elem)/stride) {
			return nil, fmt.Errorf("%d elements of %d bytes (stride %d) overrun buffer view %d: %d bytes left after byteOffset %d",
				a.Count, elem, stride, *a.BufferView, len(view), a.ByteOffset)
		}
		out = make([]float64, a.Count*nc)
		decodeElements(out, view, stride, nc, a.ComponentType, a.Normalized)
	} else {
		limit := gltfMinZeroFill
		for _, b := range doc.Buffers {
			if b != nil {
				limit += len(b.Data)
			}
		}
		if a.Count > limit/nc {
			return nil, fmt.Errorf("%d elements without a buffer view: more than the %d values allowed", a.Count, limit)
		}
		out = make([]float64, a.Count*nc)
	}
	if a.Sparse != nil {
		if err := applySparse(doc, a, out); err != nil {
			return nil, fmt.Errorf("sparse: %w", err)
		}
	}
	if a.ComponentType == gltf.ComponentFloat {
		for k, x := range out {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("element %d: non-finite value %v", k/nc, x)
			}
		}
	}
	return out, nil
}

// bufferView returns the bytes of buffer view i and its byteStride.
func bufferView(doc *gltf.Document, i int) ([]byte, int, error) {
	if i < 0 || i >= len(doc.BufferViews) || doc.BufferViews[i] == nil {
		return nil, 0, fmt.Errorf("buffer view %d does not exist (%d buffer views)", i, len(doc.BufferViews))
	}
	bv := doc.BufferViews[i]
	if bv.Buffer < 0 || bv.Buffer >= len(doc.Buffers) || doc.Buffers[bv.Buffer] == nil {
		return nil, 0, fmt.Errorf("buffer view %d: buffer %d does not exist (%d buffers)", i, bv.Buffer, len(doc.Buffers))
	}
	data := doc.Buffers[bv.Buffer].Data
	if bv.ByteOffset < 0 || bv.ByteLength < 0 || bv.ByteOffset > len(data) || bv.ByteLength > len(data)-bv.ByteOffset {
		return nil, 0, fmt.Errorf("buffer view %d: bytes [%d, %d+%d) outside buffer %d of %d bytes", i, bv.ByteOffset, bv.ByteOffset, bv.ByteLength, bv.Buffer, len(data))
	}
	if bv.ByteStride < 0 {
		return nil, 0, fmt.Errorf("buffer view %d: negative byteStride %d", i, bv.ByteStride)
	}
	return data[bv.ByteOffset : bv.ByteOffset+bv.ByteLength], bv.ByteStride, nil
}

// decodeElements converts len(dst)/nc elements of nc components each, the
// first at b[0] and the others stride bytes apart.
func decodeElements(dst []float64, b []byte, stride, nc int, ct gltf.ComponentType, normalized bool) {
	n := len(dst) / nc
	cs := ct.ByteSize()
	if ct == gltf.ComponentFloat {
		for e := 0; e < n; e++ {
			p := b[e*stride:]
			for c := 0; c < nc; c++ {
				dst[e*nc+c] = float64(math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:])))
			}
		}
		return
	}
	for e := 0; e < n; e++ {
		p := b[e*stride:]
		for c := 0; c < nc; c++ {
			dst[e*nc+c] = decodeInt(p[c*cs:], ct, normalized)
		}
	}
}

// decodeInt reads one integer component, normalised if asked (glTF 2.0
// spec, section 3.11: signed values clamp at -1).
func decodeInt(p []byte, ct gltf.ComponentType, normalized bool) float64 {
	var x, scale float64
	switch ct {
	case gltf.ComponentByte:
		x, scale = float64(int8(p[0])), 127
	case gltf.ComponentUbyte:
		x, scale = float64(p[0]), 255
	case gltf.ComponentShort:
		x, scale = float64(int16(binary.LittleEndian.Uint16(p))), 32767
	case gltf.ComponentUshort:
		x, scale = float64(binary.LittleEndian.Uint16(p)), 65535
	default: // gltf.ComponentUint; never normalized
		return float64(binary.LittleEndian.Uint32(p))
	}
	if normalized {
		return max(x/scale, -1)
	}
	return x
}

// applySparse overwrites the elements of out that a sparse accessor lists.
func applySparse(doc *gltf.Document, a *gltf.Accessor, out []float64) error {
	s := a.Sparse
	if s.Count < 1 || s.Count > a.Count {
		return fmt.Errorf("count %d outside [1, %d]", s.Count, a.Count)
	}
	ict := s.Indices.ComponentType
	if ict != gltf.ComponentUbyte && ict != gltf.ComponentUshort && ict != gltf.ComponentUint {
		return fmt.Errorf("indices: component type %v, want an unsigned integer", ict)
	}
	idx, err := sparseBytes(doc, "indices", s.Indices.BufferView, s.Indices.ByteOffset, s.Count, ict.ByteSize())
	if err != nil {
		return err
	}
	nc := a.Type.Components()
	elem := nc * a.ComponentType.ByteSize()
	vals, err := sparseBytes(doc, "values", s.Values.BufferView, s.Values.ByteOffset, s.Count, elem)
	if err != nil {
		return err
	}
	values := make([]float64, s.Count*nc)
	decodeElements(values, vals, elem, nc, a.ComponentType, a.Normalized)
	for k := 0; k < s.Count; k++ {
		e := int(decodeInt(idx[k*ict.ByteSize():], ict, false))
		if e >= a.Count {
			return fmt.Errorf("index %d of entry %d is out of range [0, %d)", e, k, a.Count)
		}
		copy(out[e*nc:(e+1)*nc], values[k*nc:])
	}
	return nil
}

// sparseBytes returns count tightly packed elements of size bytes at offset
// in buffer view bv.
func sparseBytes(doc *gltf.Document, what string, bv, offset, count, size int) ([]byte, error) {
	view, _, err := bufferView(doc, bv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if offset < 0 || offset > len(view) || count > (len(view)-offset)/size {
		return nil, fmt.Errorf("%s: %d elements of %d bytes at byteOffset %d overrun buffer view %d of %d bytes", what, count, size, offset, bv, len(view))
	}
	return view[offset:], nil
}
