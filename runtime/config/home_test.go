package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecureHome(t *testing.T) {
	mode := func(t *testing.T, path string) os.FileMode {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Mode().Perm()
	}
	t.Run("created 0700", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "new", ".scv")
		if err := SecureHome(home); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, home); m != 0o700 {
			t.Fatalf("created home is mode %04o, want 0700", m)
		}
	})
	t.Run("loose home tightened", func(t *testing.T) {
		home := t.TempDir()
		if err := os.Chmod(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := SecureHome(home); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, home); m != 0o700 {
			t.Fatalf("home is mode %04o, want 0700", m)
		}
	})
	t.Run("stricter home kept", func(t *testing.T) {
		home := t.TempDir()
		if err := os.Chmod(home, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(home, 0o700) })
		if err := SecureHome(home); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, home); m != 0o500 {
			t.Fatalf("home is mode %04o, want it left at 0500", m)
		}
	})
	t.Run("a file is refused", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(home, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := SecureHome(home); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Fatalf("SecureHome(file) = %v, want a not-a-directory error", err)
		}
	})
	t.Run("another user's directory is refused", func(t *testing.T) {
		if os.Getuid() == 0 {
			t.Skip("root owns the only directory we know belongs to someone else")
		}
		// / belongs to root; SecureHome must refuse it rather than try to chmod it.
		err := SecureHome("/")
		if err == nil || !strings.Contains(err.Error(), "belongs to uid 0") {
			t.Fatalf("SecureHome(/) = %v, want a refusal naming the owner", err)
		}
	})
}
