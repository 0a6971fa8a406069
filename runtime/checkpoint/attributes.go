package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
)

// pinnedAttributes is the shadow repository's info/attributes. Git ranks
// that file above every .gitattributes of the work tree, so whatever the
// workspace's files say, a snapshot stores the bytes on disk and a diff
// runs no driver:
//   - -text -crlf !eol: no line-ending conversion (text=auto, eol=crlf
//     would store CRLF files as LF, and undo would restore other bytes);
//   - -ident: no $Id$ expansion or collapse;
//   - -working-tree-encoding: no re-encoding (UTF-16 stored as UTF-8);
//   - -filter: no clean or smudge program;
//   - !diff: no diff driver, so no textconv or external diff command; left
//     unspecified rather than unset, which would make every file binary;
//   - -merge, !export-subst: no merge driver, no archive expansion.
const pinnedAttributes = "* -text -crlf !eol -ident -working-tree-encoding -filter !diff -merge !export-subst\n"

// pinAttributes writes pinnedAttributes into gitDir, on every open: a
// repository created before them gets them too.
func pinAttributes(gitDir string) error {
	path := filepath.Join(gitDir, "info", "attributes")
	if b, err := os.ReadFile(path); err == nil && string(b) == pinnedAttributes {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("pin the checkpoints' attributes: %w", err)
	}
	if err := os.WriteFile(path, []byte(pinnedAttributes), 0o600); err != nil {
		return fmt.Errorf("pin the checkpoints' attributes: %w", err)
	}
	return nil
}
