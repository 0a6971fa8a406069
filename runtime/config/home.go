package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// HomeDirMode is the mode of scv's home directory: it holds the daemon's
// socket, its log and possibly an API key, so only its user may enter it.
const HomeDirMode = 0o700

// SecureHome makes home a directory only the current user can enter: it
// creates it with HomeDirMode, or tightens an existing one of the user's
// that others may read or enter. A home owned by someone else is refused,
// since its owner could read or replace what scv keeps there.
func SecureHome(home string) error {
	if err := os.MkdirAll(home, HomeDirMode); err != nil {
		return fmt.Errorf("create %s: %w", home, err)
	}
	info, err := os.Stat(home)
	if err != nil {
		return fmt.Errorf("inspect %s: %w", home, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s (%s) is not a directory", home, HomeEnv)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s (%s) belongs to uid %d, not to you (uid %d): choose a directory of your own with %s",
			home, HomeEnv, st.Uid, os.Getuid(), HomeEnv)
	}
	if info.Mode().Perm()&^HomeDirMode == 0 {
		return nil
	}
	if err := os.Chmod(home, HomeDirMode); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s (%s) is mode %04o and cannot be made %04o: %w", home, HomeEnv, info.Mode().Perm(), HomeDirMode, err)
		}
		return fmt.Errorf("restrict %s to mode %04o: %w", home, HomeDirMode, err)
	}
	return nil
}

// orHome is home, or Home() when it is "".
func orHome(home string) (string, error) {
	if home != "" {
		return home, nil
	}
	return Home()
}
