package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"scv/internal/regfile"
)

// What a path of the workspace holds now, as a revert and a turn's late
// check see it: found by workTree's walk, so never beyond a symlink, and
// read only when it is a regular file.

// kind is what a path holds, as far as a revert is concerned.
type kind int

const (
	absent kind = iota
	regular
	symlink
	directory
	special    // a named pipe, socket or device: never opened
	blocked    // a name on the way is not a directory: git sees no file here
	unreadable // there, but could not be read
)

// onDisk is what a path holds now.
type onDisk struct {
	kind  kind
	entry *Entry // regular and symlink: as git would store it
	// what says what is there, or for blocked what is in the way (a
	// parent's path and what it is), or for unreadable why; for a regular
	// file read for a conflict but too large to keep, its size.
	what string
}

// file is the path as an entry for comparing with a tree's (nil where no
// file is: a directory, or beyond something that is not a directory).
func (d onDisk) file() *Entry {
	switch d.kind {
	case regular, symlink:
		return d.entry
	case special, unreadable:
		return &Entry{Mode: "none"} // matches no tree's entry
	}
	return nil
}

// changedAt is the inode change time of path, or of what stands for it
// where it is gone (see Turn.late).
func (w *workTree) changedAt(path string) (time.Time, error) {
	d, err := w.root.OpenRoot(".")
	if err != nil {
		return time.Time{}, err
	}
	defer func() { d.Close() }()
	here, err := d.Stat(".")
	if err != nil {
		return time.Time{}, err
	}
	names := strings.Split(path, "/")
	last := len(names) - 1
	for _, name := range names[:last] {
		info, err := d.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return changeTime(here), nil
		}
		if err != nil {
			return time.Time{}, err
		}
		if !info.IsDir() {
			return changeTime(info), nil
		}
		next, err := enter(d, name, false)
		if err != nil {
			return time.Time{}, err
		}
		d.Close()
		d, here = next, info
	}
	info, err := d.Lstat(names[last])
	if errors.Is(err, fs.ErrNotExist) {
		return changeTime(here), nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return changeTime(info), nil
}

// splitPresent sorts paths of the workspace work into those where git
// finds a file to store (a regular file or a symlink, with no symlink on
// the way: git refuses a path beyond one, which would fail the whole
// command) and the others, where git stores none.
func splitPresent(work string, paths []string) (present, absent []string, err error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	w, err := openWorkTree(work)
	if err != nil {
		return nil, nil, err
	}
	defer w.Close()
	for _, p := range paths {
		if w.holdsFile(p) {
			present = append(present, p)
		} else {
			absent = append(absent, p)
		}
	}
	return present, absent, nil
}

// holdsFile reports whether path is a regular file or a symlink reached
// through directories only.
func (w *workTree) holdsFile(path string) bool {
	d, name, err := w.parent(path, false)
	if err != nil {
		return false
	}
	defer d.Close()
	info, err := d.Lstat(name)
	return err == nil && (info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0)
}

// look reports what path holds now, hashed as git hashes a blob.
func (w *workTree) look(path string) onDisk {
	now, _ := w.read(path, false)
	return now
}

// read is look, and with keep also the content (a file's bytes, a
// symlink's target) for a conflict's diff.
func (w *workTree) read(path string, keep bool) (onDisk, []byte) {
	d, name, err := w.parent(path, false)
	var blk *errBlocked
	switch {
	case errors.As(err, &blk):
		return onDisk{kind: blocked, what: blk.Error()}, nil
	case errors.Is(err, fs.ErrNotExist):
		return onDisk{kind: absent}, nil
	case err != nil:
		return onDisk{kind: unreadable, what: err.Error()}, nil
	}
	defer d.Close()
	info, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return onDisk{kind: absent}, nil
	}
	if err != nil {
		return onDisk{kind: unreadable, what: err.Error()}, nil
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		return onDisk{kind: directory, what: "a directory"}, nil
	case mode&fs.ModeSymlink != 0:
		target, err := d.Readlink(name)
		if err != nil {
			return onDisk{kind: unreadable, what: err.Error()}, nil
		}
		return onDisk{kind: symlink, entry: &Entry{Mode: modeSymlink, Hash: blobHash([]byte(target))}}, kept([]byte(target), keep)
	case !mode.IsRegular():
		return onDisk{kind: special, what: regfile.Describe(mode)}, nil
	}
	tooLarge := keep && info.Size() > MaxConflictReadBytes
	hash, data, err := readRegular(d, name, info, keep && !tooLarge)
	if err != nil {
		return onDisk{kind: unreadable, what: err.Error()}, nil
	}
	e := &Entry{Mode: "100644", Hash: hash}
	if mode&0o111 != 0 {
		e.Mode = modeExecutable
	}
	now := onDisk{kind: regular, entry: e}
	if tooLarge {
		now.what = strconv.FormatInt(info.Size(), 10) + " bytes"
	}
	return now, data
}

// MaxConflictReadBytes bounds the file a conflict's diff reads whole; a
// larger one's conflict says its size (a revert hashes any file as it
// reads it, never holding it: a sparse file of any size takes a moment to
// make).
const MaxConflictReadBytes = 4 << 20

func kept(data []byte, keep bool) []byte {
	if keep {
		return data
	}
	return nil
}

// errChanged is readRegular's answer for a file that is not the one its
// Lstat saw, or that changed size while it was read.
var errChanged = errors.New("it changed while being read")

// readRegular hashes the regular file name in d that info describes as
// git hashes a blob, as it reads it, and with keep also returns its bytes.
// It opens without waiting, as regfile does (a named pipe swapped in after
// the Lstat would block the open), and makes sure it read that very file,
// whole.
func readRegular(d *os.Root, name string, info fs.FileInfo, keep bool) (hash string, data []byte, err error) {
	f, now, err := regfile.OpenInRoot(d, name)
	if errors.Is(err, regfile.ErrNotRegular) {
		return "", nil, errChanged
	}
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if !os.SameFile(info, now) {
		return "", nil, errChanged
	}
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.FormatInt(now.Size(), 10)+"\x00")
	var w io.Writer = h
	var buf bytes.Buffer
	if keep {
		w = io.MultiWriter(h, &buf)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return "", nil, err
	}
	if n != now.Size() {
		return "", nil, errChanged
	}
	return hex.EncodeToString(h.Sum(nil)), kept(buf.Bytes(), keep), nil
}

// blobHash is the id git gives data as a blob.
func blobHash(data []byte) string {
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.Itoa(len(data))+"\x00")
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
