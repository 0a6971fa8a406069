package store

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTitle(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tc := range []struct{ prompt, want string }{
		{"fix the bug", "fix the bug"},
		{"  first line  \nsecond line", "first line"},
		{"\n\n  after blank lines\r\nnext", "after blank lines"},
		{long, strings.Repeat("é", TitleRunes)},
		{strings.Repeat("a", 79) + " b", strings.Repeat("a", 79)},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"", ""},
	} {
		if got := Title(tc.prompt); got != tc.want {
			t.Errorf("Title(%q) = %q, want %q", tc.prompt, got, tc.want)
		}
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "0b5c1d2e-3f40-4a5b-8c9d-0e1f2a3b4c5d", "ABC-123"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
	for _, id := range []string{"", "-a", "../a", "a/b", ".", "..", "a.b", "a b", "a\x00", "é", strings.Repeat("a", MaxIDLength+1)} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

func TestRecordEncoding(t *testing.T) {
	var buf bytes.Buffer
	at := time.Date(2026, 12, 1, 10, 0, 0, 5, time.FixedZone("x", 3600))
	recs := []Record{
		{Seq: 1, Type: "prompt", At: at, Data: []byte("{\n  \"text\": \"a\\nb\"\n}")},
		{Seq: 2, Type: "turn/end", At: at},
	}
	for _, r := range recs {
		if err := appendRecord(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"seq":1,"type":"prompt","at":"2026-12-01T09:00:00.000000005Z","data":{"text":"a\nb"}}` + "\n" +
		`{"seq":2,"type":"turn/end","at":"2026-12-01T09:00:00.000000005Z","data":null}` + "\n"
	if buf.String() != want {
		t.Fatalf("encoded\n%s\nwant\n%s", buf.String(), want)
	}
	lines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	for i, line := range lines {
		got, err := parseRecord([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if got.Seq != recs[i].Seq || got.Type != recs[i].Type || !got.At.Equal(at) {
			t.Fatalf("line %d read back as %+v", i, got)
		}
	}
	// A line in another valid shape (edited by hand) still reads.
	got, err := parseRecord([]byte(` { "type": "x", "data": [1, 2], "seq": 7 } `))
	if err != nil || got.Seq != 7 || string(got.Data) != "[1, 2]" {
		t.Fatalf("hand-edited line: %+v, %v", got, err)
	}

	for _, bad := range []Record{
		{Seq: 0, Type: "x"},
		{Seq: 1, Type: ""},
		{Seq: 1, Type: "bad\"type"},
		{Seq: 1, Type: "x", Data: []byte("{not json")},
		{Seq: 1, Type: "x", Data: []byte(`"` + strings.Repeat("a", MaxRecordBytes) + `"`)},
	} {
		before := buf.Len()
		if err := appendRecord(&buf, bad); err == nil {
			t.Errorf("record %+.40v accepted", bad)
		}
		if buf.Len() != before {
			t.Errorf("a refused record left %d bytes in the buffer", buf.Len()-before)
		}
	}
}
