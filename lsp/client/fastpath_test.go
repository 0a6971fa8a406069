package client

import (
	"bytes"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

const deltaFrame = `{"jsonrpc":"2.0","method":"scv/assistant/delta","params":{"sessionId":"0c5c7a4e-9d0c-4d7e-bd39-1f0e2a3b4c5d","seq":12345,"turnId":"7f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8","content":"tok "}}`

// fastPathFrames: whether the fast path should take each frame; every
// frame it takes must read the same as through the general scanner.
var fastPathFrames = []struct {
	name  string
	frame string
	fast  bool
}{
	{"delta", deltaFrame, true},
	{"escapes in content", `{"jsonrpc":"2.0","method":"scv/assistant/delta","params":{"content":"a \"quoted\" {brace} \\ back\\\\slash \u00e9 \n","seq":1}}`, true},
	{"escaped quote before brace", `{"jsonrpc":"2.0","method":"m","params":{"a":"\"}"}}`, true},
	{"nested params", `{"jsonrpc":"2.0","method":"scv/queue/snapshot","params":{"items":[{"id":"q1","text":"]}"},{"id":"q2","n":[1,[2,{}]]}],"x":{"y":{"z":null}}}}`, true},
	{"empty params", `{"jsonrpc":"2.0","method":"scv/session/cleared","params":{}}`, true},
	{"unknown method", `{"jsonrpc":"2.0","method":"x/custom","params":{"a":1}}`, true},
	{"show message", `{"jsonrpc":"2.0","method":"window/showMessage","params":{"type":1,"message":"bye"}}`, true},
	{"id after params", `{"jsonrpc":"2.0","method":"m","params":{"a":1},"id":3}`, false},
	{"member after params", `{"jsonrpc":"2.0","method":"m","params":{"a":1},"z":{}}`, false},
	{"odd key order", `{"method":"m","jsonrpc":"2.0","params":{}}`, false},
	{"params first", `{"params":{},"jsonrpc":"2.0","method":"m"}`, false},
	{"id before params", `{"jsonrpc":"2.0","method":"m","id":1,"params":{}}`, false},
	{"spaces", `{"jsonrpc": "2.0", "method": "m", "params": {}}`, false},
	{"trailing space", `{"jsonrpc":"2.0","method":"m","params":{}} `, false},
	{"escaped method", `{"jsonrpc":"2.0","method":"scv\/assistant\/delta","params":{}}`, false},
	{"non-ASCII method", `{"jsonrpc":"2.0","method":"é","params":{}}`, false},
	{"empty method", `{"jsonrpc":"2.0","method":"","params":{}}`, false},
	{"array params", `{"jsonrpc":"2.0","method":"m","params":[1,2]}`, false},
	{"null params", `{"jsonrpc":"2.0","method":"m","params":null}`, false},
	{"no params", `{"jsonrpc":"2.0","method":"m"}`, false},
	{"unbalanced params", `{"jsonrpc":"2.0","method":"m","params":{"a":{}}`, false},
	{"unterminated string", `{"jsonrpc":"2.0","method":"m","params":{"a":"}}`, false},
	{"trailing backslash", `{"jsonrpc":"2.0","method":"m","params":{"a":"\}}`, false},
	{"old version", `{"jsonrpc":"1.0","method":"m","params":{}}`, false},
	{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
	{"empty", ``, false},
	{"truncated", `{"jsonrpc":"2.0","method":"m`, false},
}

func TestFastPathAgreesWithScanner(t *testing.T) {
	for _, tc := range fastPathFrames {
		t.Run(tc.name, func(t *testing.T) {
			checkAgainstScanner(t, []byte(tc.frame), tc.fast)
		})
	}
}

// checkAgainstScanner fails if the fast path takes frame when want is
// false (or the reverse), or reads a frame it takes differently from
// jsonrpc2.ScanMessageView.
func checkAgainstScanner(t *testing.T, frame []byte, want bool) {
	t.Helper()
	method, params, ok := scanServerNotification(frame)
	if ok != want {
		t.Fatalf("fast path took %q: %v, want %v", frame, ok, want)
	}
	if !ok {
		return
	}
	view, err := jsonrpc2.ScanMessageView(frame)
	if err != nil {
		t.Fatalf("fast path took %q, which the scanner rejects: %v", frame, err)
	}
	slowMethod, _ := view.MethodString()
	if view.Kind != jsonrpc2.MessageViewNotification || slowMethod != method || !bytes.Equal(view.Params, params) {
		t.Fatalf("fast path read %q as %q %s; scanner: kind %v %q %s", frame, method, params, view.Kind, slowMethod, view.Params)
	}
}

// FuzzFastPath: whatever frame the fast path takes, it reads as the
// general scanner does.
func FuzzFastPath(f *testing.F) {
	for _, tc := range fastPathFrames {
		f.Add([]byte(tc.frame))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		if _, _, ok := scanServerNotification(frame); ok {
			checkAgainstScanner(t, frame, true)
		}
	})
}

func BenchmarkDispatchDelta(b *testing.B) {
	frame := []byte(deltaFrame)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scanServerNotification(frame)
		}
	})
	b.Run("scanner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, _ := jsonrpc2.ScanMessageView(frame)
			v.MethodString()
		}
	})
}

// BenchmarkStringLengthEscaped reads one string of a million escapes, as a
// queue of full-size prompts of '<' (each \u003c) gives: linear in its
// length, where a search to the closing quote per escape was quadratic
// (the forwarded big-reply test took minutes).
func BenchmarkStringLengthEscaped(b *testing.B) {
	s := []byte(strings.Repeat(`\u003c`, 1<<20) + `"`)
	for b.Loop() {
		if n := stringLength(s); n != len(s)-1 {
			b.Fatalf("stringLength = %d, want %d", n, len(s)-1)
		}
	}
}
