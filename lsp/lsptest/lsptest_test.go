package lsptest

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"scv/lsp/wire"
)

func ev(index int, method, sid string, seq uint64, turn string, extra string) Note {
	params := fmt.Sprintf(`{"sessionId":%q,"seq":%d,"turnId":%q%s}`, sid, seq, turn, extra)
	return newNote(index, method, []byte(params))
}

// The checker must catch what it exists for, or every test passes blindly.
func TestInvariantsCatchBrokenStreams(t *testing.T) {
	cases := []struct {
		name  string
		notes []Note
		bad   int // violations expected
	}{
		{"good", []Note{
			ev(0, "scv/turn/started", "s", 1, "t", ""),
			ev(1, "scv/assistant/delta", "s", 2, "t", ""),
			ev(2, "scv/turn/completed", "s", 3, "t", ""),
			ev(3, "scv/turn/started", "s", 4, "u", ""),
		}, 0},
		{"hole", []Note{ev(0, "scv/turn/started", "s", 1, "t", ""), ev(1, "scv/assistant/delta", "s", 3, "t", "")}, 1},
		{"repeat", []Note{ev(0, "scv/turn/started", "s", 1, "t", ""), ev(1, "scv/turn/started", "s", 1, "t", "")}, 1},
		{"sessions apart", []Note{ev(0, "scv/turn/started", "a", 1, "t", ""), ev(1, "scv/turn/started", "b", 7, "u", "")}, 0},
		{"two terminals", []Note{
			ev(0, "scv/turn/cancelled", "s", 1, "t", ""),
			ev(1, "scv/turn/failed", "s", 2, "t", ""),
		}, 1},
		{"event after the end", []Note{
			ev(0, "scv/turn/completed", "s", 1, "t", ""),
			ev(1, "scv/assistant/delta", "s", 2, "t", ""),
		}, 1},
		{"changes after an end that announced them", []Note{
			ev(0, "scv/turn/completed", "s", 1, "t", `,"changesPending":true`),
			ev(1, "scv/turn/started", "s", 2, "u", ""),
			ev(2, "scv/turn/changes", "s", 3, "t", ""),
		}, 0},
		{"changes the end did not announce", []Note{
			ev(0, "scv/turn/cancelled", "s", 1, "t", ""),
			ev(1, "scv/turn/changes", "s", 2, "t", ""),
		}, 1},
		{"changes twice", []Note{
			ev(0, "scv/turn/failed", "s", 1, "t", `,"changesPending":true`),
			ev(1, "scv/turn/changes", "s", 2, "t", ""),
			ev(2, "scv/turn/changes", "s", 3, "t", ""),
		}, 1},
		{"changes announced and never sent before the close", []Note{
			ev(0, "scv/turn/completed", "s", 1, "t", `,"changesPending":true`),
			ev(1, "scv/turn/cancelled", "s", 2, "u", ""),
			ev(2, "scv/session/closed", "s", 3, "", ""),
		}, 1},
		{"changes before the end", []Note{
			ev(0, "scv/turn/started", "s", 1, "t", ""),
			ev(1, "scv/turn/changes", "s", 2, "t", ""),
			ev(2, "scv/turn/completed", "s", 3, "t", ""),
		}, 1},
		{"changes announced, then events lost", []Note{
			ev(0, "scv/turn/completed", "s", 1, "t", `,"changesPending":true`),
			newNote(1, "scv/session/lagged", []byte(`{"sessionId":"s","missed":1}`)),
			ev(2, "scv/session/closed", "s", 3, "", ""),
		}, 0},
		{"reloaded after the close", []Note{
			ev(0, "scv/turn/completed", "s", 1, "t", ""),
			ev(1, "scv/session/closed", "s", 2, "", ""),
			ev(2, "scv/turn/started", "s", 4097, "u", ""),
		}, 0},
		{"lagged exactly", []Note{
			ev(0, "scv/assistant/delta", "s", 1, "t", ""),
			newNote(1, "scv/session/lagged", []byte(`{"sessionId":"s","missed":5}`)),
			ev(2, "scv/assistant/delta", "s", 7, "t", ""),
		}, 0},
		{"lagged wrongly", []Note{
			ev(0, "scv/assistant/delta", "s", 1, "t", ""),
			newNote(1, "scv/session/lagged", []byte(`{"sessionId":"s","missed":5}`)),
			ev(2, "scv/assistant/delta", "s", 6, "t", ""),
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inv := newInvariants()
			for _, n := range tc.notes {
				inv.observe(n)
			}
			if len(inv.violations) != tc.bad {
				t.Errorf("%d violations, want %d: %v", len(inv.violations), tc.bad, inv.violations)
			}
		})
	}
	inv := newInvariants()
	inv.observe(ev(0, "scv/turn/completed", "s", 9, "t", ""))
	inv.restart("s") // an attach may replay from anywhere
	inv.observe(ev(1, "scv/turn/completed", "s", 3, "t", ""))
	if len(inv.violations) != 0 {
		t.Errorf("violations across an attach: %v", inv.violations)
	}
}

// oneByte reads one byte at a time, splitting every frame across reads.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }
func (oneByte) Write(p []byte) (int, error)  { return len(p), nil }
func (oneByte) Close() error                 { return nil }

func TestTapSeesEveryFrame(t *testing.T) {
	bodies := []string{`{"a":1}`, `{"jsonrpc":"2.0","id":1,"result":null}`, `{"big":"` + strings.Repeat("x", 100000) + `"}`, `{}`}
	var stream []byte
	for _, b := range bodies {
		stream = wire.AppendFrame(stream, []byte(b))
	}
	var got []string
	tp := &tap{ReadWriteCloser: oneByte{bytes.NewReader(stream)}, onFrame: func(b []byte) { got = append(got, string(b)) }}
	if _, err := io.ReadAll(tp); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(bodies) {
		t.Errorf("tap saw %q, want %q", got, bodies)
	}
}
