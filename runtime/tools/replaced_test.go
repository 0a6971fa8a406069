package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// write_file tells what it would replace, read inside the workspace and
// bounded, so a proposal can show the change before it is approved.
func TestWriteFileReplacedText(t *testing.T) {
	ws := newTestWorkspace(t)
	root := ws.Root()
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "one\ntwo\n", "big.txt": "0123456789", "img.bin": "\x00\x01\x02"})
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	r, ok := toolNamed(t, ws, testLimits(), "write_file").(Replacer)
	if !ok {
		t.Fatal("write_file is not a Replacer")
	}
	tests := []struct {
		name, args string
		want       string
		ok         bool
	}{
		{"an existing text file", `{"path":"a.txt","content":"x"}`, "one\ntwo\n", true},
		{"a new file", `{"path":"new.txt","content":"x"}`, "", false},
		{"over the bound", `{"path":"big.txt","content":"x"}`, "", false},
		{"binary", `{"path":"img.bin","content":"x"}`, "", false},
		{"outside the workspace", `{"path":"../secret.txt","content":"x"}`, "", false},
		{"through a symlink out", `{"path":"out/secret.txt","content":"x"}`, "", false},
		{"malformed", `{"path":3}`, "", false},
	}
	for _, tc := range tests {
		got, ok := r.ReplacedText([]byte(tc.args), 9)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: ReplacedText = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
