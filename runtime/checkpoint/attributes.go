package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"

	"scv/internal/regfile"
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

// pinInfo makes gitDir's info files what scv wrote: info/attributes
// pinnedAttributes and info/exclude the directories kept out of snapshots
// (keepout.go). On every open, so a repository created before them gets
// them too, and before every snapshot, since a workspace that holds scv's
// home (scv run in ~) holds the shadow repository too, and a model allowed
// to write files could rewrite them: attributes naming a filter its
// config then runs, an exclude that lets scv's own files in.
func (r *Repo) pinInfo() error {
	if err := pinFile(r.g.gitDir, "attributes", pinnedAttributes); err != nil {
		return fmt.Errorf("pin the checkpoints' attributes: %w", err)
	}
	if err := pinFile(r.g.gitDir, "exclude", r.exclude); err != nil {
		return fmt.Errorf("pin the checkpoints' excludes: %w", err)
	}
	return nil
}

// pinFile makes gitDir's info/name hold text. Whatever is there instead
// (another text, a named pipe, a symlink to elsewhere, a directory) is
// replaced, never read through or written through.
func pinFile(gitDir, name, text string) error {
	info := filepath.Join(gitDir, "info")
	path := filepath.Join(info, name)
	if b, _, err := regfile.ReadFile(path, int64(len(text))); err == nil && string(b) == text {
		return nil
	}
	if fi, err := os.Lstat(info); err == nil && !fi.IsDir() {
		if err := os.Remove(info); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(info, 0o700); err != nil {
		return err
	}
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
