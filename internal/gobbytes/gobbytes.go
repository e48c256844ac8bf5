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
)

// Decode decodes data, a whole gob stream, into v, after checking that
// every message's declared length fits in what is left of data: no
// message buffer is larger than data.
func Decode(data []byte, v any) error {
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
