package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"scv/internal/regfile"
)

// readInRoot reads at most max bytes of rel, opened through an os.Root so
// that no symlink swapped in after our checks can lead outside rootDir.
// Only a regular file is read: a FIFO or device fails at once instead of
// blocking the session's start. The text is cut back to whole runes and
// made valid UTF-8.
func readInRoot(rootDir, rel string, max int) (text string, truncated bool, err error) {
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return "", false, err
	}
	defer root.Close()
	f, _, err := regfile.OpenInRoot(root, rel)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	data, truncated, err := regfile.ReadAll(f, int64(max))
	if err != nil {
		return "", false, err
	}
	if truncated {
		// Drop a rune the cut split in two rather than show a replacement
		// character for it.
		for i := 0; i < utf8.UTFMax && len(data) > 0; i++ {
			if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size > 1 {
				break
			}
			data = data[:len(data)-1]
		}
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), truncated, nil
}

// inside reports whether path is root or lies beneath it; both must be
// clean absolute paths with symlinks already resolved.
func inside(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}
