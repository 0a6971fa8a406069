package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"scv/internal/smalldisk"
)

// TestAFullDiskLosesNothingAndRecovers fills a real (tmpfs) disk under an
// open session. Writes fail while it is full, and none of them is lost:
// once space is freed the next Sync writes every record appended
// meanwhile. The Log's first write error used to stick, so nothing was
// stored again after space returned.
func TestAFullDiskLosesNothingAndRecovers(t *testing.T) {
	st, err := Open(filepath.Join(smalldisk.Mount(t, 1<<20), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Create(testHeader("full", "/w"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(testRecord(1, "prompt", "before")); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	free := smalldisk.Fill(t, filepath.Dir(st.Dir()))
	big := strings.Repeat("x", 2*flushBytes) // forces a write at Append
	for seq := uint64(2); seq <= 3; seq++ {
		if err := l.Append(testRecord(seq, "answer", big)); err != nil {
			t.Fatalf("append %d on a full disk: %v (the record should stay buffered)", seq, err)
		}
	}
	if err := l.Sync(); !errors.Is(err, ErrWrite) {
		t.Fatalf("sync on a full disk: %v, want ErrWrite", err)
	}
	if got, err := st.Read("full"); err != nil || len(got.Records) != 1 || len(got.Warnings) != 0 {
		t.Fatalf("the file after a failed write: %d records, warnings %v, err %v; want the synced record only, whole", len(got.Records), got.Warnings, err)
	}
	free()
	if err := l.Sync(); err != nil {
		t.Fatalf("sync once space is back: %v", err)
	}
	if err := l.Append(testRecord(4, "prompt", "after")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := st.Read("full")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 4 || len(got.Warnings) != 0 {
		t.Fatalf("after recovery: %d records (want 4), warnings %v", len(got.Records), got.Warnings)
	}
}

// TestACommitThatCannotBeStoredIsTakenBack: a change committed on a full
// disk is refused and leaves no trace, not even later, while what was
// appended before it is written once there is room.
func TestACommitThatCannotBeStoredIsTakenBack(t *testing.T) {
	st, err := Open(filepath.Join(smalldisk.Mount(t, 1<<20), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Create(testHeader("commit", "/w"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free := smalldisk.Fill(t, filepath.Dir(st.Dir()))
	if err := l.Append(testRecord(1, "answer", "kept")); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(testRecord(2, "rename", strings.Repeat("r", 8192))); !errors.Is(err, ErrWrite) {
		t.Fatalf("commit on a full disk: %v, want ErrWrite", err)
	}
	if l.LastSeq() != 1 {
		t.Fatalf("LastSeq after a refused commit = %d, want 1", l.LastSeq())
	}
	free()
	// The refused seq is free again: the next change takes it.
	if err := l.Commit(testRecord(2, "rename", "stored")); err != nil {
		t.Fatal(err)
	}
	got, err := st.Read("commit")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range got.Records {
		seen = append(seen, fmt.Sprintf("%d:%s", r.Seq, r.Data))
	}
	if want := `1:"kept" 2:"stored"`; strings.Join(seen, " ") != want || len(got.Warnings) != 0 {
		t.Fatalf("records %v warnings %v, want %s", seen, got.Warnings, want)
	}
}

// TestAWriteErrorNamesTheSessionFile: a log's file is created under a
// temporary name and linked under its own, so a failed write used to be
// reported against the temporary name, a file that no longer exists
// ("write …/s.jsonl: …: write …/.tmp-…: no space left on device"). The
// error names the session's file only.
func TestAWriteErrorNamesTheSessionFile(t *testing.T) {
	st, err := Open(filepath.Join(smalldisk.Mount(t, 1<<20), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Create(testHeader("named", "/w"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	smalldisk.Fill(t, filepath.Dir(st.Dir()))
	if err := l.Append(testRecord(1, "answer", strings.Repeat("x", 2*flushBytes))); err != nil {
		t.Fatal(err)
	}
	err = l.Sync()
	if !errors.Is(err, ErrWrite) || strings.Contains(err.Error(), tempPrefix) || !strings.Contains(err.Error(), l.Path()) {
		t.Fatalf("sync on a full disk: %v, want ErrWrite naming %s and no temporary file", err, l.Path())
	}
}
