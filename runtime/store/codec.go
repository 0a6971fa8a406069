package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// The writer emits every record in one fixed shape,
//
//	{"seq":N,"type":"T","at":"RFC3339Nano","data":JSON}
//
// so the reader can take a fast path that needs no reflection; a line in
// any other valid shape (say, edited by hand) still reads through
// encoding/json.

var (
	keySeq  = []byte(`{"seq":`)
	keyType = []byte(`,"type":"`)
	keyAt   = []byte(`","at":"`)
	keyData = []byte(`","data":`)
	null    = []byte("null")
)

// appendRecord encodes rec as one line at the end of buf. On error buf is
// left as it was.
func appendRecord(buf *bytes.Buffer, rec Record) error {
	if rec.Seq == 0 || rec.Seq > MaxSeq {
		return fmt.Errorf("record seq %d is not between 1 and MaxSeq (%d)", rec.Seq, uint64(MaxSeq))
	}
	if !validType(rec.Type) {
		return fmt.Errorf("record type %q: use 1 to %d characters of A-Z, a-z, 0-9 and . _ / -", rec.Type, MaxTypeLength)
	}
	at := rec.At
	if at.IsZero() {
		at = time.Now()
	}
	start := buf.Len()
	var scratch [64]byte
	buf.Write(keySeq)
	buf.Write(strconv.AppendUint(scratch[:0], rec.Seq, 10))
	buf.Write(keyType)
	buf.WriteString(rec.Type)
	buf.Write(keyAt)
	buf.Write(at.UTC().AppendFormat(scratch[:0], time.RFC3339Nano))
	buf.Write(keyData)
	data := rec.Data
	if len(data) == 0 {
		data = null
	}
	// A payload must be valid JSON without line breaks, which would break
	// the one-record-per-line format: Compact removes them, and the
	// common case (json.Marshal's output has none) is only validated.
	if bytes.ContainsAny(data, "\r\n") {
		if err := json.Compact(buf, data); err != nil {
			buf.Truncate(start)
			return fmt.Errorf("record %d (%s): data is not valid JSON: %w", rec.Seq, rec.Type, err)
		}
	} else if json.Valid(data) {
		buf.Write(data)
	} else {
		buf.Truncate(start)
		return fmt.Errorf("record %d (%s): data is not valid JSON", rec.Seq, rec.Type)
	}
	buf.WriteString("}\n")
	if n := buf.Len() - start; n > MaxRecordBytes {
		buf.Truncate(start)
		return fmt.Errorf("record %d (%s) is %d bytes encoded, more than MaxRecordBytes (%d)", rec.Seq, rec.Type, n, MaxRecordBytes)
	}
	return nil
}

// parseRecord reads one line (without its newline). The returned Data
// aliases line.
func parseRecord(line []byte) (Record, error) {
	if rec, ok := parseRecordFast(line); ok {
		return rec, nil
	}
	var rec Record
	var raw struct {
		Seq  uint64          `json:"seq"`
		Type string          `json:"type"`
		At   time.Time       `json:"at"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return rec, fmt.Errorf("not a JSON record: %v", err)
	}
	if raw.Seq == 0 || !validType(raw.Type) {
		return rec, fmt.Errorf("not a record: missing seq or a valid type")
	}
	if raw.Seq > MaxSeq {
		return rec, fmt.Errorf("not a record: seq %d is more than MaxSeq (%d)", raw.Seq, uint64(MaxSeq))
	}
	rec = Record{Seq: raw.Seq, Type: raw.Type, At: raw.At, Data: raw.Data}
	if bytes.Equal(rec.Data, null) {
		rec.Data = nil
	}
	return rec, nil
}

func parseRecordFast(line []byte) (Record, bool) {
	var rec Record
	rest, ok := bytes.CutPrefix(line, keySeq)
	if !ok {
		return rec, false
	}
	i := bytes.IndexByte(rest, ',')
	if i <= 0 {
		return rec, false
	}
	seq, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil || seq == 0 || seq > MaxSeq {
		return rec, false
	}
	if rest, ok = bytes.CutPrefix(rest[i:], keyType); !ok {
		return rec, false
	}
	if i = bytes.IndexByte(rest, '"'); i < 0 || !validType(string(rest[:i])) {
		return rec, false
	}
	typ := string(rest[:i])
	if rest, ok = bytes.CutPrefix(rest[i:], keyAt); !ok {
		return rec, false
	}
	if i = bytes.IndexByte(rest, '"'); i < 0 {
		return rec, false
	}
	at, err := time.Parse(time.RFC3339Nano, string(rest[:i]))
	if err != nil {
		return rec, false
	}
	if rest, ok = bytes.CutPrefix(rest[i:], keyData); !ok {
		return rec, false
	}
	data, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok || !json.Valid(data) {
		return rec, false
	}
	if bytes.Equal(data, null) {
		data = nil
	}
	return Record{Seq: seq, Type: typ, At: at, Data: data}, true
}

// parsed is what a session file holds.
type parsed struct {
	header   Header
	records  []Record
	warnings []Warning
	// good is the length of the file up to the end of its last complete
	// line; a torn tail lies beyond it.
	good int64
	torn bool
}

// parseLog reads a whole session file. It fails only when the header
// cannot be read; bad records are skipped with a warning.
func parseLog(path string, data []byte) (parsed, error) {
	var p parsed
	if len(data) == 0 {
		return p, &FormatError{Path: path, Reason: "the file is empty: it has no header, so there is no session to restore (remove the file)"}
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return p, &FormatError{Path: path, Reason: "the header line is incomplete (no newline): the session was never fully created (remove the file)"}
	}
	h, err := parseHeader(path, data[:nl])
	if err != nil {
		return p, err
	}
	p.header = h
	p.records = make([]Record, 0, bytes.Count(data, []byte{'\n'}))
	off, line := nl+1, 1
	var last uint64
	for off < len(data) {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			p.torn = true
			p.warnings = append(p.warnings, Warning{Path: path, Line: line, Offset: int64(off),
				Problem: fmt.Sprintf("torn last line (%d bytes without a newline, left by an interrupted write): skipped", len(data)-off)})
			break
		}
		rec, err := parseRecord(data[off : off+end])
		switch {
		case err != nil:
			p.warnings = append(p.warnings, Warning{Path: path, Line: line, Offset: int64(off), Problem: err.Error() + ": skipped"})
		case rec.Seq <= last:
			p.warnings = append(p.warnings, Warning{Path: path, Line: line, Offset: int64(off),
				Problem: fmt.Sprintf("record seq %d does not follow %d: skipped", rec.Seq, last)})
		default:
			last = rec.Seq
			p.records = append(p.records, rec)
		}
		off += end + 1
	}
	p.good = int64(off)
	if p.torn {
		p.good = p.warnings[len(p.warnings)-1].Offset
	}
	return p, nil
}

func parseHeader(path string, line []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return h, &FormatError{Path: path, Reason: fmt.Sprintf("the first line is not a session header (%v): not a scv session file", err)}
	}
	switch {
	case h.Version == 0:
		return h, &FormatError{Path: path, Reason: "the header has no format version \"v\": not a scv session file"}
	case h.Version != FormatVersion:
		return h, &FormatError{Path: path, Version: h.Version,
			Reason: fmt.Sprintf("format version %d is not one this scv reads (it reads %d): the file was written by another version of scv", h.Version, FormatVersion)}
	case !ValidID(h.ID):
		return h, &FormatError{Path: path, Reason: fmt.Sprintf("the header's id %q is not a valid session id", h.ID)}
	}
	return h, nil
}
