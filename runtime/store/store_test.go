package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateAppendLoad(t *testing.T) {
	s := newStore(t)
	l, err := s.Create(testHeader("s1", "/work/p"))
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		testRecord(1, "prompt", map[string]any{"text": "hello\nworld"}),
		{Seq: 2, Type: "assistant", At: testRecord(2, "", nil).At, Data: []byte("{\n \"text\" : \"hi\"\n}")},
		{Seq: 5, Type: "turn/end", At: testRecord(5, "", nil).At},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if l.LastSeq() != 5 {
		t.Fatalf("LastSeq %d", l.LastSeq())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, l.Append(testRecord(6, "x", 1)), ErrClosed)

	path := logPath(s, "s1")
	for _, p := range []string{path, filepath.Join(s.Dir(), metaName("/work/p", "s1"))} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(s.Dir()); fi.Mode().Perm() != 0o700 {
		t.Errorf("store dir has mode %v, want 0700", fi.Mode().Perm())
	}
	checkLines(t, path)

	l, got := mustLoad(t, s, "s1")
	defer l.Close()
	if len(got.Warnings) != 0 {
		t.Fatalf("warnings %v", got.Warnings)
	}
	h := got.Header
	if h.Version != FormatVersion || h.ID != "s1" || h.Cwd != "/work/p" || h.Model != "gpt-test" || h.Title != "title of s1" {
		t.Fatalf("header %+v", h)
	}
	if len(got.Records) != 3 {
		t.Fatalf("%d records", len(got.Records))
	}
	if string(got.Records[1].Data) != `{"text":"hi"}` || got.Records[2].Data != nil || !got.Records[0].At.Equal(recs[0].At) {
		t.Fatalf("records %+v", got.Records)
	}
	if got.Meta.Title != "title of s1" {
		t.Fatalf("meta %+v", got.Meta)
	}
	if l.LastSeq() != 5 {
		t.Fatalf("loaded LastSeq %d", l.LastSeq())
	}
	if err := l.Append(testRecord(5, "x", 1)); err == nil {
		t.Fatal("a loaded log accepted a seq it already holds")
	}
	if err := l.Append(testRecord(6, "x", 1)); err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusesAndStaysUsable(t *testing.T) {
	s := newStore(t)
	l, err := s.Create(testHeader("s1", "/p"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(testRecord(3, "x", 1)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Record{testRecord(3, "x", 1), testRecord(2, "x", 1), {Seq: 4, Type: "x", Data: []byte("{")}, {Seq: 4, Type: "a b"}} {
		if err := l.Append(bad); err == nil {
			t.Errorf("append %+v accepted", bad)
		}
	}
	if err := l.Append(testRecord(4, "x", 1)); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read("s1")
	if err != nil || len(got.Records) != 2 || got.Records[1].Seq != 4 {
		t.Fatalf("read %+v, %v", got.Records, err)
	}
}

func TestCreateFromAndExists(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "src", "/p", 4)
	src, err := s.Read("src")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(testHeader("src", "/other"))
	wantErr(t, err, ErrExists)

	h := testHeader("fork", "/p")
	h.ForkedFrom = &ForkPoint{ID: "src", Seq: 3}
	l, err := s.CreateFrom(h, src.Records[:3])
	if err != nil {
		t.Fatal(err)
	}
	if l.LastSeq() != 3 {
		t.Fatalf("fork LastSeq %d", l.LastSeq())
	}
	if err := l.Append(testRecord(4, "prompt", "more")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got, err := s.Read("fork")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 4 || got.Header.ForkedFrom == nil || *got.Header.ForkedFrom != (ForkPoint{"src", 3}) {
		t.Fatalf("fork %+v %+v", got.Header, got.Records)
	}
	if _, err := s.CreateFrom(testHeader("f2", "/p"), []Record{testRecord(2, "x", 1), testRecord(2, "x", 1)}); err == nil {
		t.Fatal("records out of order accepted")
	}
	if _, err := s.Read("f2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused fork left a session: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.Dir(), tempPrefix+"*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestInvalidIDsAreRefused(t *testing.T) {
	s := newStore(t)
	for _, id := range []string{"../escape", "a/b", "", "-rf", "a.jsonl", "..", "x\x00"} {
		_, err := s.Create(testHeader(id, "/p"))
		wantErr(t, err, ErrInvalidID)
		_, _, err = s.Load(id)
		wantErr(t, err, ErrInvalidID)
		_, err = s.Read(id)
		wantErr(t, err, ErrInvalidID)
		wantErr(t, s.Delete(id), ErrInvalidID)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Dir()))
	if len(entries) != 1 {
		t.Fatalf("files created beside the store: %v", entries)
	}
}

func TestTornTailIsRepairedAndReportedOnce(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "s1", "/p", 3)
	path := logPath(s, "s1")
	appendToFile(t, path, `{"seq":4,"type":"assistant","at":"2026-12-`)

	// Read reports the torn tail but does not repair it.
	got, err := s.Read("s1")
	if err != nil || len(got.Records) != 3 || len(got.Warnings) != 1 {
		t.Fatalf("read: %d records, warnings %v, %v", len(got.Records), got.Warnings, err)
	}
	l, got := mustLoad(t, s, "s1")
	if len(got.Records) != 3 || len(got.Warnings) != 1 || got.Warnings[0].Line != 5 ||
		!strings.Contains(got.Warnings[0].String(), "torn last line") || !strings.Contains(got.Warnings[0].String(), path) {
		t.Fatalf("load: %d records, warnings %v", len(got.Records), got.Warnings)
	}
	if err := l.Append(testRecord(4, "assistant", "again")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	checkLines(t, path)
	l, got = mustLoad(t, s, "s1")
	defer l.Close()
	if len(got.Warnings) != 0 || len(got.Records) != 4 || string(got.Records[3].Data) != `"again"` {
		t.Fatalf("second load: records %d, warnings %v", len(got.Records), got.Warnings)
	}
}

func TestBadMiddleLinesAreSkipped(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "s1", "/p", 2)
	path := logPath(s, "s1")
	appendToFile(t, path, "this is not json\n"+
		`{"seq":2,"type":"x","at":"2026-12-01T00:00:00Z","data":1}`+"\n"+ // seq does not follow
		`{"seq":3,"type":"x","at":"2026-12-01T00:00:00Z","data":{bad}}`+"\n"+
		`{"seq":4,"type":"x","at":"2026-12-01T00:00:00Z","data":4}`+"\n")
	l, got := mustLoad(t, s, "s1")
	defer l.Close()
	if len(got.Records) != 3 || got.Records[2].Seq != 4 || l.LastSeq() != 4 {
		t.Fatalf("records %+v", got.Records)
	}
	if len(got.Warnings) != 3 || got.Warnings[0].Line != 4 || got.Warnings[1].Line != 5 || got.Warnings[2].Line != 6 {
		t.Fatalf("warnings %v", got.Warnings)
	}
}

func TestUnreadableFiles(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
		version             int
	}{
		{"empty", "", "the file is empty", 0},
		{"not json", "PK\x03\x04 binary junk\nmore\n", "not a session header", 0},
		{"incomplete header", `{"v":1,"id":"s1","cwd":"/p"`, "header line is incomplete", 0},
		{"no version", `{"id":"s1","cwd":"/p"}` + "\n", "no format version", 0},
		{"unknown version", `{"v":2,"id":"s1","cwd":"/p"}` + "\n" + `{"seq":1}` + "\n", "format version 2 is not one this scv reads", 2},
		{"other id", `{"v":1,"id":"s2","cwd":"/p"}` + "\n", "names session s2", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			path := logPath(s, "s1")
			writeFile(t, path, tc.content)
			_, _, err := s.Load("s1")
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Version != tc.version || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("load error %v, want a FormatError naming %s and saying %q", err, path, tc.want)
			}
			_, err = s.Read("s1")
			wantErr(t, err, ErrFormat)
			// The file is left for the user to inspect, and can be removed.
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete("s1"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestHeaderOnlyLoadsEmpty(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "s1", "/p", 0)
	l, got := mustLoad(t, s, "s1")
	if len(got.Records) != 0 || len(got.Warnings) != 0 || got.Header.ID != "s1" || l.LastSeq() != 0 {
		t.Fatalf("loaded %+v", got)
	}
	if err := l.Append(testRecord(1, "prompt", "x")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	checkLines(t, logPath(s, "s1"))
}

func TestOwnedWithinOneProcess(t *testing.T) {
	s := newStore(t)
	l, err := s.Create(testHeader("s1", "/p"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Load("s1")
	var owned *OwnedError
	if !errors.As(err, &owned) || owned.ID != "s1" || !strings.Contains(err.Error(), "owned by another scv process") {
		t.Fatalf("second load: %v", err)
	}
	wantErr(t, s.Delete("s1"), ErrOwned)
	if _, err := s.Read("s1"); err != nil {
		t.Fatalf("read while owned: %v", err)
	}
	l.Close()
	if err := s.Delete("s1"); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Load("s1")
	wantErr(t, err, ErrNotFound)
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 0 {
		t.Fatalf("left after delete: %v", entries)
	}
}

func TestSymlinksAreNotFollowed(t *testing.T) {
	s := newStore(t)
	outside := filepath.Join(t.TempDir(), "victim")
	writeFile(t, outside, `{"v":1,"id":"s1","cwd":"/p"}`+"\n")
	if err := os.Symlink(outside, logPath(s, "s1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Load("s1"); err == nil {
		t.Fatal("loaded a session through a symlink")
	}
	if _, err := s.Read("s1"); err == nil {
		t.Fatal("read a session through a symlink")
	}
	os.Remove(logPath(s, "s1"))

	l, err := s.Create(testHeader("s1", "/p"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	meta := filepath.Join(s.Dir(), metaName("/p", "s1"))
	os.Remove(meta)
	if err := os.Symlink(outside, meta); err != nil {
		t.Fatal(err)
	}
	if err := l.SetMeta(Meta{Title: "renamed"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(outside); string(data) != `{"v":1,"id":"s1","cwd":"/p"}`+"\n" {
		t.Fatalf("the symlink's target was written: %q", data)
	}
	if fi, err := os.Lstat(meta); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("sidecar is still a symlink: %v", err)
	}
}
