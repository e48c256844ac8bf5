package assets

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qmuntal/gltf"
)

// LoadGLTF reads the glTF 2.0 file at path, either JSON (.gltf, with buffers
// embedded as data URIs or in external files resolved relative to path) or
// binary (.glb), and converts it with ReadGLTF. Object i's Source is
// {Kind: SourceGLTF, Paths: [path], Index: i}. Errors name the file's base name and the element at fault, as in
// "RiggedFigure.gltf: accessor 7: ...".
func LoadGLTF(path string) ([]*Object, error) {
	return LoadGLTFAnimation(path, "")
}

// LoadGLTFAnimation is LoadGLTF reading the animation called anim in place
// of the file's first one (see ReadGLTFAnimation).
func LoadGLTFAnimation(path, anim string) ([]*Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	doc, err := decodeGLTF(data, os.DirFS(filepath.Dir(path)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	objs, err := ReadGLTFAnimation(doc, name, anim)
	if err != nil {
		return nil, err
	}
	if anim == "" {
		if err := readTakes(doc, name, objs); err != nil {
			return nil, err
		}
	}
	for i, o := range objs {
		o.Source = &Source{Kind: SourceGLTF, Paths: []string{path}, Index: i}
	}
	return objs, nil
}

// readTakes gives each of objs (as ReadGLTF read them from doc, with the
// first animation that moves each) the file's other animations that move
// it as takes, each with its joint animation, in the file's order, so the
// artist sees and can play every animation a file holds.
func readTakes(doc *gltf.Document, name string, objs []*Object) error {
	names := GLTFAnimationNames(doc)
	if len(names) < 2 {
		return nil
	}
	for k, anim := range names {
		if doc.Animations[k] == nil || doc.Animations[k].Name == "" || slices.Index(names, anim) != k {
			continue // only named, distinctly named animations can be read alone
		}
		other, err := ReadGLTFAnimation(doc, name, anim)
		if err != nil {
			return err
		}
		if len(other) != len(objs) {
			return fmt.Errorf("%s: animation %q gives %d objects, the first %d", name, anim, len(other), len(objs))
		}
		for i, o := range objs {
			c := other[i].Clip
			if c == nil || o.Clip == nil || c.Name == o.Clip.Name {
				continue
			}
			o.Takes = append(o.Takes, Take{Clip: c, Skin: other[i].Skin})
		}
	}
	return nil
}

// GLB container constants (glTF 2.0 spec, section 4.4).
const (
	glbMagic     = 0x46546C67 // "glTF"
	glbChunkJSON = 0x4E4F534A // "JSON"
	glbChunkBIN  = 0x004E4942 // "BIN\0"
)

// decodeGLTF parses a .gltf or .glb file's bytes into a document whose
// buffers all hold their data (Buffer.Data, exactly byteLength bytes).
// External buffer URIs are read from fsys, which may be nil when there is
// no directory to read them from.
//
// It does the work of gltf.Open itself because that function cannot read
// data URIs of type application/gltf-buffer (SimpleMorph.gltf uses one) and
// allocates a GLB's binary chunk at the size the JSON claims, which
// panics or exhausts memory on malformed input.
func decodeGLTF(data []byte, fsys fs.FS) (*gltf.Document, error) {
	jsonData, bin, isGLB, err := splitGLB(data)
	if err != nil {
		return nil, err
	}
	jsonData = bytes.TrimPrefix(jsonData, []byte("\xEF\xBB\xBF"))
	doc := new(gltf.Document)
	if err := json.Unmarshal(jsonData, doc); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	for i, b := range doc.Buffers {
		if b == nil {
			return nil, fmt.Errorf("buffer %d: null", i)
		}
		var d []byte
		switch {
		case b.URI == "" && i == 0 && isGLB:
			if bin == nil {
				return nil, fmt.Errorf("buffer 0: the GLB file has no BIN chunk")
			}
			d = bin
		case b.URI == "":
			return nil, fmt.Errorf("buffer %d: no uri", i)
		case strings.HasPrefix(b.URI, "data:"):
			d, err = decodeDataURI(b.URI)
		default:
			d, err = readExternal(fsys, b.URI)
		}
		if err != nil {
			return nil, fmt.Errorf("buffer %d: %w", i, err)
		}
		if b.ByteLength < 0 || len(d) < b.ByteLength {
			return nil, fmt.Errorf("buffer %d: byteLength %d, but the data has %d bytes", i, b.ByteLength, len(d))
		}
		b.Data = d[:b.ByteLength:b.ByteLength]
	}
	return doc, nil
}

// splitGLB returns the JSON and BIN chunks of a GLB file, or data itself as
// JSON when it does not start with the GLB magic number.
func splitGLB(data []byte) (jsonData, bin []byte, isGLB bool, err error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != glbMagic {
		return data, nil, false, nil
	}
	if len(data) < 12 {
		return nil, nil, true, fmt.Errorf("truncated GLB header: %d bytes", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, true, fmt.Errorf("GLB version %d, want 2", v)
	}
	if n := binary.LittleEndian.Uint32(data[8:]); uint64(n) > uint64(len(data)) {
		return nil, nil, true, fmt.Errorf("truncated GLB: header says %d bytes, file has %d", n, len(data))
	} else if n < 12 {
		return nil, nil, true, fmt.Errorf("GLB header length %d is too small", n)
	} else {
		data = data[12:n]
	}
	for chunk := 0; len(data) > 0; chunk++ {
		if len(data) < 8 {
			return nil, nil, true, fmt.Errorf("GLB chunk %d: truncated header", chunk)
		}
		n, typ := binary.LittleEndian.Uint32(data), binary.LittleEndian.Uint32(data[4:])
		if uint64(n) > uint64(len(data)-8) {
			return nil, nil, true, fmt.Errorf("GLB chunk %d: length %d exceeds the %d bytes left", chunk, n, len(data)-8)
		}
		body := data[8 : 8+n]
		data = data[8+n:]
		switch {
		case chunk == 0 && typ != glbChunkJSON:
			return nil, nil, true, errors.New("GLB chunk 0 is not JSON")
		case chunk == 0:
			jsonData = body
		case chunk == 1 && typ == glbChunkBIN:
			bin = body
		}
	}
	if jsonData == nil {
		return nil, nil, true, errors.New("GLB has no JSON chunk")
	}
	return jsonData, bin, true, nil
}

// decodeDataURI returns the bytes of a base64 data URI of any media type.
func decodeDataURI(uri string) ([]byte, error) {
	head, payload, ok := strings.Cut(uri, ",")
	if !ok || !strings.HasSuffix(head, ";base64") {
		return nil, errors.New("data URI is not base64")
	}
	d, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("data URI: %w", err)
	}
	return d, nil
}

// readExternal reads a buffer stored in a file named by a relative URI.
func readExternal(fsys fs.FS, uri string) ([]byte, error) {
	name, err := url.PathUnescape(uri)
	if err != nil {
		return nil, fmt.Errorf("uri %q: %w", uri, err)
	}
	name = strings.TrimPrefix(name, "./")
	if strings.Contains(name, ":") || !fs.ValidPath(name) {
		return nil, fmt.Errorf("uri %q: only files in or below the glTF file's folder are read", uri)
	}
	if fsys == nil {
		return nil, fmt.Errorf("uri %q: external file, but no folder to read it from", uri)
	}
	return fs.ReadFile(fsys, name)
}

// FirstSkinned returns the first of objs with a rig (a skinned mesh), or
// nil.
func FirstSkinned(objs []*Object) *Object {
	for _, o := range objs {
		if o.Rig != nil {
			return o
		}
	}
	return nil
}
