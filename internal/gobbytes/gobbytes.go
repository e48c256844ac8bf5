// Package gobbytes decodes gob data held in memory without trusting its
// message lengths: encoding/gob allocates a message's declared length
// before reading it, so four bytes declaring a 3 MB message (or five
// declaring 1 GB) allocate that much.
package gobbytes

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"
)

// Decode decodes data, a whole gob stream, into v, after checking that
// every message's declared length fits in what is left of data: no
// message buffer is larger than data. A v whose type holds a map (or an
// interface, which could hold one) is refused before any decoding: gob
// makes a map of its declared entry count before reading an entry, a
// count no length check bounds; keep pairs in a slice instead.
func Decode(data []byte, v any) error {
	if where := unbounded(reflect.TypeOf(v), "", map[reflect.Type]bool{}); where != "" {
		return fmt.Errorf("gobbytes: %T holds %s, which gob allocates at its declared size: decode a slice instead", v, where)
	}
	for pos := 0; pos < len(data); {
		n, w, err := readUint(data[pos:])
		if err != nil {
			return fmt.Errorf("gob message at byte %d: %w", pos, err)
		}
		pos += w
		if n > uint64(len(data)-pos) {
			return fmt.Errorf("gob message at byte %d declares %d bytes, %d are left", pos-w, n, len(data)-pos)
		}
		pos += int(n)
	}
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// readUint reads a gob unsigned integer at the start of b: a byte below
// 128 is the value; otherwise the byte is minus the count (1 to 8) of the
// big-endian bytes that follow. It returns the value and the bytes read.
func readUint(b []byte) (uint64, int, error) {
	if len(b) == 0 {
		return 0, 0, errors.New("truncated")
	}
	if b[0] < 0x80 {
		return uint64(b[0]), 1, nil
	}
	n := -int(int8(b[0]))
	if n < 1 || n > 8 {
		return 0, 0, fmt.Errorf("bad length prefix %#x", b[0])
	}
	if len(b) < 1+n {
		return 0, 0, errors.New("truncated")
	}
	var x uint64
	for _, c := range b[1 : 1+n] {
		x = x<<8 | uint64(c)
	}
	return x, 1 + n, nil
}

// unbounded returns where in t (a field path, "" for t itself) a map or an
// interface lies, described, or "" when none does; seen stops recursive
// types.
func unbounded(t reflect.Type, at string, seen map[reflect.Type]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	name := func(what string) string {
		if at == "" {
			return what
		}
		return what + " (" + at + ")"
	}
	switch t.Kind() {
	case reflect.Map:
		return name("a map")
	case reflect.Interface:
		return name("an interface")
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return unbounded(t.Elem(), at, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue // gob skips unexported fields
			}
			path := f.Name
			if at != "" {
				path = at + "." + f.Name
			}
			if w := unbounded(f.Type, path, seen); w != "" {
				return w
			}
		}
	}
	return ""
}
