package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	// No one ever opens it for writing: a blocking open would never return.
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/dev/zero": "character device", fifo: "named pipe", dir: "directory"} {
		_, _, err := ReadFile(path, 1<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %v naming %q", path, err, ErrNotRegular, want)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, _, err := OpenInRoot(root, "fifo"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo in root: %v", err)
	}
}

func TestReadFileCapsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, _, err := ReadFile(path, 5); err != nil || string(data) != "12345" {
		t.Fatalf("at the cap: %q, %v", data, err)
	}
	var tooLarge *TooLargeError
	if _, _, err := ReadFile(path, 4); !errors.As(err, &tooLarge) || tooLarge.Max != 4 {
		t.Fatalf("over the cap: %v", err)
	}
}
