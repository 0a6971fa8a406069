package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestASeqBeyondMaxSeqIsNotARecord: a stored seq of 2^64-1 used to load,
// and the session's next seq wrapped to 0. Seqs stop at MaxSeq (2^53-1,
// exact in every JSON reader): a larger one is refused when appended and
// skipped, with a warning, when read.
func TestASeqBeyondMaxSeqIsNotARecord(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "huge", "/w", 1)
	appendToFile(t, logPath(s, "huge"), `{"seq":18446744073709551615,"type":"prompt","at":"2026-12-01T10:00:00Z","data":null}`+"\n")
	appendToFile(t, logPath(s, "huge"), `{"type":"prompt","seq":9007199254740992,"at":"2026-12-01T10:00:00Z","data":null}`+"\n")
	l, loaded, err := s.Load("huge")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if len(loaded.Records) != 1 || len(loaded.Warnings) != 2 || l.LastSeq() != 1 {
		t.Fatalf("loaded %d records, last seq %d, warnings %v; want 1 record and 2 warnings", len(loaded.Records), l.LastSeq(), loaded.Warnings)
	}
	if err := l.Append(testRecord(MaxSeq+1, "prompt", nil)); err == nil {
		t.Fatal("a seq above MaxSeq was appended")
	}
	if err := l.Append(testRecord(MaxSeq, "prompt", nil)); err != nil {
		t.Fatalf("seq MaxSeq: %v", err)
	}
}

// TestALogRefusesRecordsPastItsLimit: a session file used to grow past
// what Load accepts and was lost at the next load. A Log refuses the
// record that would pass its store's MaxLogBytes, and the file loads.
func TestALogRefusesRecordsPastItsLimit(t *testing.T) {
	s, err := OpenWith(filepath.Join(t.TempDir(), "sessions"), Limits{MaxLogBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create(testHeader("bounded", "/w"))
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	for seq = 1; ; seq++ {
		err = l.Append(testRecord(seq, "answer", strings.Repeat("a", 500)))
		if err != nil {
			break
		}
	}
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || !errors.Is(err, ErrTooLarge) || tooLarge.Limit != 4096 {
		t.Fatalf("append past the limit: %v, want a *TooLargeError", err)
	}
	if l.Size() > 4096 || l.LastSeq() != seq-1 {
		t.Fatalf("size %d, last seq %d after the refusal", l.Size(), l.LastSeq())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read("bounded")
	if err != nil || len(got.Records) != int(seq-1) {
		t.Fatalf("read back %d records (want %d): %v", len(got.Records), seq-1, err)
	}
}
