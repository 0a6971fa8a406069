package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testHeader(id, cwd string) Header {
	return Header{ID: id, Cwd: cwd, Model: "gpt-test", Provider: "replay", ApprovalPolicy: "on-request",
		CreatedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Title: "title of " + id}
}

func testRecord(seq uint64, typ string, payload any) Record {
	data, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return Record{Seq: seq, Type: typ, At: time.Date(2026, 12, 1, 10, 0, 0, int(seq), time.UTC), Data: data}
}

// createWith stores session id with n records and closes it.
func createWith(t testing.TB, s *Store, id, cwd string, n int) {
	t.Helper()
	l, err := s.Create(testHeader(id, cwd))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if err := l.Append(testRecord(uint64(i), "prompt", map[string]any{"text": fmt.Sprintf("prompt %d", i)})); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func logPath(s *Store, id string) string { return filepath.Join(s.Dir(), logName(id)) }

func appendToFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t testing.TB, s *Store, id string) (*Log, Loaded) {
	t.Helper()
	l, got, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return l, got
}

// checkLines asserts every line of the file after the header is a record
// in the writer's own shape.
func checkLines(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("%s does not end with a newline", path)
	}
	lines := bytes.Split(data[:len(data)-1], []byte{'\n'})
	for i, line := range lines[1:] {
		if _, ok := parseRecordFast(line); !ok {
			t.Fatalf("%s line %d is not a record: %q", path, i+2, line)
		}
	}
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}
