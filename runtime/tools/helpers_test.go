package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// testLimits are small so truncation is easy to reach.
func testLimits() Limits {
	return Limits{MaxReadBytes: 1 << 10, MaxOutputBytes: 2 << 10, ShellTimeout: 30 * time.Second, MaxGrepMatches: 5}
}

// newTestWorkspace makes a workspace in a fresh temp dir.
func newTestWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatalf("NewWorkspace: %v", err)
	}
	return ws
}

// writeFiles creates files (relative path → content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func toolNamed(t *testing.T, ws *Workspace, limits Limits, name string) Tool {
	t.Helper()
	tool, ok := NewRegistry(Builtin(ws, limits, ShellEnv{})...).Get(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}

func argsJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run calls a tool and checks the invariants every Result must keep.
func run(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		raw = argsJSON(t, args)
	}
	res := tool.Run(context.Background(), raw)
	checkResult(t, res)
	return res
}

func checkResult(t *testing.T, res Result) {
	t.Helper()
	if !utf8.ValidString(res.Output) {
		t.Fatalf("output is not valid UTF-8: %q", res.Output)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back != res {
		t.Fatalf("result does not survive JSON: %v (%+v vs %+v)", err, back, res)
	}
}

func wantOK(t *testing.T, res Result) {
	t.Helper()
	if !res.Success {
		t.Fatalf("want success, got failure: %s", res.Output)
	}
}

func wantFail(t *testing.T, res Result, substrings ...string) {
	t.Helper()
	if res.Success {
		t.Fatalf("want failure, got success: %s", res.Output)
	}
	for _, s := range substrings {
		if !strings.Contains(res.Output, s) {
			t.Fatalf("output %q does not contain %q", res.Output, s)
		}
	}
}
