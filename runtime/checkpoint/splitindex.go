package checkpoint

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// A user's repository with core.splitIndex keeps most of its index in a
// shared index file beside it (sharedindex.<id>), which the index names in
// its "link" extension. Git looks for that file in the git directory of
// the git reading the index, so listing a copy of the user's index needs a
// copy of its shared index in the shadow repository's git directory too.
// sharedIndexID reads the id from an index file's bytes.

// sharedIndexPrefix names a shared index file: the prefix and its id.
const sharedIndexPrefix = "sharedindex."

// Sizes in an index file with SHA-1 object ids (the shadow repository's:
// an index of another object format cannot be listed by it anyway).
const (
	indexHeaderLen    = 12 // "DIRC", version, entry count
	indexOIDLen       = 20
	indexEntryFixed   = 40 + indexOIDLen + 2 // stat data, object id, flags
	indexExtendedFlag = 0x4000
	indexNameMask     = 0x0fff
)

var errIndexFormat = errors.New("not an index file git writes")

// sharedIndexID returns the id of the shared index the index in data is
// split from; "" when it is not split.
func sharedIndexID(data []byte) (string, error) {
	if len(data) < indexHeaderLen+indexOIDLen || !bytes.HasPrefix(data, []byte("DIRC")) {
		return "", errIndexFormat
	}
	version := binary.BigEndian.Uint32(data[4:8])
	count := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - indexOIDLen // the file's own checksum
	at := indexHeaderLen
	for i := uint32(0); i < count; i++ {
		next, err := skipEntry(data[:end], at, version)
		if err != nil {
			return "", err
		}
		at = next
	}
	for at+8 <= end {
		sig := string(data[at : at+4])
		size := int(binary.BigEndian.Uint32(data[at+4 : at+8]))
		body := at + 8
		if size < 0 || body+size > end {
			return "", errIndexFormat
		}
		if sig == "link" {
			if size < indexOIDLen {
				return "", errIndexFormat
			}
			id := data[body : body+indexOIDLen]
			if bytes.Count(id, []byte{0}) == indexOIDLen {
				return "", nil // split, but onto no shared index
			}
			return hex.EncodeToString(id), nil
		}
		at = body + size
	}
	return "", nil
}

// skipEntry returns where the index entry at at ends.
func skipEntry(data []byte, at int, version uint32) (int, error) {
	if at+indexEntryFixed > len(data) {
		return 0, errIndexFormat
	}
	flags := binary.BigEndian.Uint16(data[at+indexEntryFixed-2:])
	start := at
	at += indexEntryFixed
	if version >= 3 && flags&indexExtendedFlag != 0 {
		at += 2
	}
	if version >= 4 {
		// A varint (how much of the previous name to keep), then the
		// rest of the name, NUL-terminated, with no padding.
		for at < len(data) && data[at]&0x80 != 0 {
			at++
		}
		at++
		nul := bytes.IndexByte(data[min(at, len(data)):], 0)
		if nul < 0 {
			return 0, errIndexFormat
		}
		return at + nul + 1, nil
	}
	nameLen := int(flags & indexNameMask)
	if nameLen == indexNameMask { // longer: up to its NUL
		nul := bytes.IndexByte(data[min(at, len(data)):], 0)
		if nul < 0 {
			return 0, errIndexFormat
		}
		nameLen = nul
	}
	// The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
	next := start + (at-start+nameLen+8)&^7
	if next > len(data) {
		return 0, errIndexFormat
	}
	return next, nil
}
