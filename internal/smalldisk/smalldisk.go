// Package smalldisk gives tests a real full disk: a small tmpfs mounted
// for one test, and a filler file that takes every free byte of it until
// the test frees it again. It needs root (mount(2)); without it the test
// is skipped, saying so.
package smalldisk

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes for t and returns its directory; it
// is unmounted when t ends.
func Mount(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	MountAt(t, dir, size)
	return dir
}

// MountAt mounts a tmpfs of size bytes on dir, which it creates, for t.
func MountAt(t testing.TB, dir string, size int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is tested on a tmpfs this test mounts, which needs root")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs at %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}

// Fill writes a file in dir until the disk is full, and returns the
// function that removes it, which frees the space again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// The last partial block: fill byte by byte what a page could not.
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			break
		}
	}
	f.Close()
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
