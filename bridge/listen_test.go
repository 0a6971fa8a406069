package bridge

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListenRefusesSecondDaemon(t *testing.T) {
	path := tempSocket(t)
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = Listen(path)
	var running *AlreadyRunningError
	if !errors.As(err, &running) {
		t.Fatalf("second Listen = %v, want AlreadyRunningError", err)
	}
	if want := "scv daemon already running at " + path; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
	// The failed attempt left the first daemon's files alone.
	for _, p := range []string{path, LockPath(path)} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

func TestListenSecuresDirectoryAndSocket(t *testing.T) {
	path := tempSocket(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if got := dir.Mode().Perm(); got != SocketDirPerm {
		t.Errorf("directory mode = %o, want %o", got, SocketDirPerm)
	}
	sock, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if sock.Mode()&fs.ModeSocket == 0 || sock.Mode().Perm() != SocketPerm {
		t.Errorf("socket mode = %v, want a socket with %o", sock.Mode(), SocketPerm)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, LockPath(path)} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after Close: %v, want it removed", p, err)
		}
	}
	// The lock is free again.
	again, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen after Close: %v", err)
	}
	again.Close()
}

func TestListenRemovesStaleSocket(t *testing.T) {
	path := tempSocket(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // the file stays, nobody answers: a daemon that was killed
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Close()
	c, err := Connect(path)
	if err != nil {
		t.Fatalf("connect to the new socket: %v", err)
	}
	c.Close()
}

func TestListenDoesNotTakeOverAnsweringSocket(t *testing.T) {
	// Something answers on the path although nobody holds the lock.
	path := tempSocket(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	other, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = Listen(path)
	var running *AlreadyRunningError
	if !errors.As(err, &running) {
		t.Fatalf("Listen = %v, want AlreadyRunningError", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the answering socket was touched: %v", err)
	}
	// The failed Listen released its lock.
	if _, err := os.Lstat(LockPath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock file after a refused Listen: %v", err)
	}
}

func TestListenNeverRemovesNonSockets(t *testing.T) {
	cases := map[string]struct {
		make func(t *testing.T, path string)
		kind string
	}{
		"regular file": {func(t *testing.T, path string) {
			os.WriteFile(path, []byte("precious"), 0o600)
		}, "a regular file"},
		"directory": {func(t *testing.T, path string) {
			os.Mkdir(path, 0o700)
		}, "a directory"},
		"symlink to a file": {func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "target")
			os.WriteFile(target, []byte("precious"), 0o600)
			os.Symlink(target, path)
		}, "a symbolic link"},
		"dangling symlink": {func(t *testing.T, path string) {
			os.Symlink("/nonexistent/scv.sock", path)
		}, "a symbolic link"},
		"symlink to a stale socket": {func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "s")
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: target, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			ln.Close()
			os.Symlink(target, path)
		}, "a symbolic link"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := tempSocket(t)
			os.MkdirAll(filepath.Dir(path), 0o700)
			tc.make(t, path)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Listen(path)
			if err == nil {
				l.Close()
				t.Fatal("Listen succeeded over a non-socket")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.kind) {
				t.Fatalf("error %q does not name %s as %s", err, path, tc.kind)
			}
			after, err := os.Lstat(path)
			if err != nil || !os.SameFile(before, after) || before.Mode() != after.Mode() {
				t.Fatalf("%s was changed: %v", path, err)
			}
			if before.Mode().IsRegular() {
				if b, _ := os.ReadFile(path); string(b) != "precious" {
					t.Fatalf("content changed to %q", b)
				}
			}
		})
	}
}

func TestListenRejectsOverlongPath(t *testing.T) {
	path := "/tmp/" + strings.Repeat("d", MaxSocketPathBytes) + "/server.sock"
	_, err := Listen(path)
	if err == nil || !strings.Contains(err.Error(), "limit of Unix socket paths") {
		t.Fatalf("Listen = %v, want the path-length error", err)
	}
}

func TestSocketPathResolution(t *testing.T) {
	t.Setenv("SCV_HOME", "/home/u/.scvhome")
	t.Setenv(SocketEnv, "")
	if p, err := SocketPath(""); err != nil || p != "/home/u/.scvhome/server.sock" {
		t.Fatalf("default = %q, %v", p, err)
	}
	t.Setenv(SocketEnv, "/run/scv/s.sock")
	if p, err := SocketPath(""); err != nil || p != "/run/scv/s.sock" {
		t.Fatalf("from %s = %q, %v", SocketEnv, p, err)
	}
	if p, err := SocketPath("/tmp/flag.sock"); err != nil || p != "/tmp/flag.sock" {
		t.Fatalf("from the flag = %q, %v", p, err)
	}
	wd, _ := os.Getwd()
	if p, err := SocketPath("rel.sock"); err != nil || p != filepath.Join(wd, "rel.sock") {
		t.Fatalf("relative flag = %q, %v", p, err)
	}
	if got := LockPath("/run/scv/s.sock"); got != "/run/scv/server.lock" {
		t.Fatalf("LockPath = %q", got)
	}
}
