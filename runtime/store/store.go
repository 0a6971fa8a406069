package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Store is a directory of session files. It keeps nothing in memory but
// the directory's path: every call reads the directory afresh, so many
// processes can share one store.
type Store struct {
	dir string
	// maxLogBytes bounds the session files its Logs write (Limits).
	maxLogBytes int64
	// noFsync leaves out every fsync. Only the benchmarks that build
	// fixtures of 10,000 sessions set it.
	noFsync bool
}

// Loaded is what Load and Read return besides the Log.
type Loaded struct {
	Header  Header
	Records []Record
	// Meta is the sidecar's last value (zero when there is none).
	Meta Meta
	// Warnings are the problems found and what was done about them; the
	// caller logs them. A torn tail is reported by the Load that repairs
	// it and never again.
	Warnings []Warning
}

// Limits are the bounds a Store keeps that its owner may lower.
type Limits struct {
	// MaxLogBytes bounds a session file: a Log refuses a record past it
	// with a *TooLargeError. Zero, or more than MaxLogBytes, is
	// MaxLogBytes (what Load accepts).
	MaxLogBytes int64
}

// Open returns the store in dir, creating the directory (mode 0700) when
// it does not exist.
func Open(dir string) (*Store, error) { return OpenWith(dir, Limits{}) }

// OpenWith is Open with limits lower than the defaults.
func OpenWith(dir string, lim Limits) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open session store: no directory given")
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("create the session store %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("open the session store %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open the session store %s: not a directory", dir)
	}
	if lim.MaxLogBytes <= 0 || lim.MaxLogBytes > MaxLogBytes {
		lim.MaxLogBytes = MaxLogBytes
	}
	return &Store{dir: dir, maxLogBytes: lim.MaxLogBytes}, nil
}

// MaxLogBytes is the bound of the session files the store's Logs write.
func (s *Store) MaxLogBytes() int64 { return s.maxLogBytes }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Create stores a new session with header h and no records. The returned
// Log holds the session's writer lock. h.ID must be new; h.Version is set
// to FormatVersion, a zero h.CreatedAt to now, and h.Cwd (which must be
// absolute) is cleaned.
func (s *Store) Create(h Header) (*Log, error) { return s.CreateFrom(h, nil) }

// CreateFrom stores a new session whose first records are recs, for
// example a fork's copy of another session's history up to a turn end.
// The session appears whole or not at all: it is written to a temporary
// file, synced, and linked under its name, which fails if that name
// exists. When CreateFrom returns, the header and recs are durable.
func (s *Store) CreateFrom(h Header, recs []Record) (*Log, error) {
	if !ValidID(h.ID) {
		return nil, invalidID(h.ID)
	}
	if len(h.Title) > MaxTitleBytes {
		return nil, fmt.Errorf("session %s: title is %d bytes, more than MaxTitleBytes (%d)", h.ID, len(h.Title), MaxTitleBytes)
	}
	if !filepath.IsAbs(h.Cwd) {
		return nil, fmt.Errorf("session %s: cwd %q is not an absolute path", h.ID, h.Cwd)
	}
	h.Cwd = filepath.Clean(h.Cwd)
	name := logName(h.ID)
	path := filepath.Join(s.dir, name)
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrExists, h.ID)
	}
	h.Version = FormatVersion
	if h.CreatedAt.IsZero() {
		h.CreatedAt = time.Now()
	}
	h.CreatedAt = h.CreatedAt.UTC()
	var buf bytes.Buffer
	line, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("session %s: encode the header: %w", h.ID, err)
	}
	buf.Write(line)
	buf.WriteByte('\n')
	var last uint64
	for _, rec := range recs {
		if rec.Seq <= last {
			return nil, fmt.Errorf("session %s: record seq %d does not follow %d", h.ID, rec.Seq, last)
		}
		if err := appendRecord(&buf, rec); err != nil {
			return nil, fmt.Errorf("session %s: %w", h.ID, err)
		}
		last = rec.Seq
	}
	if int64(buf.Len()) > s.maxLogBytes {
		return nil, &TooLargeError{ID: h.ID, Size: int64(buf.Len()), Limit: s.maxLogBytes}
	}

	f, tmp, err := newTemp(s.dir)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp) // after the link, the session's name stays
	fail := func(err error) (*Log, error) {
		f.Close()
		return nil, fmt.Errorf("create session %s: %w", h.ID, err)
	}
	if err := tryLock(f); err != nil { // a fresh file: nobody else has it
		return fail(err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrWrite, err))
	}
	if err := s.fsync(f); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrWrite, err))
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			err = fmt.Errorf("%w: %s", ErrExists, h.ID)
		}
		return fail(err)
	}
	os.Remove(tmp)
	if err := s.fsyncDir(); err != nil {
		return fail(err)
	}
	// The sidecar comes after the log, so a sidecar always has a log
	// unless a Delete removed it; Load writes a missing one again.
	l := &Log{f: f, s: s, name: name, header: h, lastSeq: last, synced: int64(buf.Len())}
	if err := l.SetMeta(Meta{Title: h.Title}); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Load opens a stored session for writing: it takes the session's writer
// lock (an *OwnedError when another Log holds it), reads the header and
// every record, and repairs a torn tail by truncating the file to its last
// complete line, so that appending resumes on a clean line. Bad lines in
// the middle are skipped and reported in Loaded.Warnings but left in the
// file.
func (s *Store) Load(id string) (*Log, Loaded, error) {
	if !ValidID(id) {
		return nil, Loaded{}, invalidID(id)
	}
	name := logName(id)
	path := filepath.Join(s.dir, name)
	f, err := openLocked(id, path, openWrite)
	if err != nil {
		return nil, Loaded{}, err
	}
	p, err := readLog(f, path, id)
	if err != nil {
		f.Close()
		return nil, Loaded{}, err
	}
	if p.torn {
		if err := f.Truncate(p.good); err == nil {
			err = f.Sync()
		}
		if err != nil {
			f.Close()
			return nil, Loaded{}, fmt.Errorf("repair the torn tail of %s: %w", path, err)
		}
		p.warnings[len(p.warnings)-1].Problem += "; the file was truncated to its last complete line"
	}
	l := &Log{f: f, s: s, name: name, header: p.header, synced: p.good}
	if n := len(p.records); n > 0 {
		l.lastSeq = p.records[n-1].Seq
	}
	loaded := Loaded{Header: p.header, Records: p.records, Warnings: p.warnings}
	if sc := s.readMeta(p.header.Cwd, id); sc != nil {
		loaded.Meta = sc.meta()
	} else if err := l.SetMeta(Meta{Title: p.header.Title}); err != nil {
		// The sidecar is missing (a crash right after Create, or removed
		// by hand): without it a listing by cwd misses the session.
		loaded.Warnings = append(loaded.Warnings, Warning{Path: path, Problem: "the sidecar was missing and could not be written again: " + err.Error()})
	} else {
		loaded.Meta.Title = p.header.Title
	}
	return l, loaded, nil
}

// Read reads a stored session without its lock and without repairing
// anything, for export and inspection. It may run while the owner appends:
// it sees what reached the file, and a line being written shows as a torn
// tail.
func (s *Store) Read(id string) (Loaded, error) {
	if !ValidID(id) {
		return Loaded{}, invalidID(id)
	}
	path := filepath.Join(s.dir, logName(id))
	f, err := os.OpenFile(path, openRead, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Loaded{}, notFound(id)
	}
	if err != nil {
		return Loaded{}, fmt.Errorf("open session %s: %w", id, err)
	}
	defer f.Close()
	p, err := readLog(f, path, id)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Header: p.header, Records: p.records, Meta: s.readMeta(p.header.Cwd, id).meta(), Warnings: p.warnings}, nil
}

func readLog(f *os.File, path, id string) (parsed, error) {
	data, err := readAll(f, path)
	if err != nil {
		return parsed{}, err
	}
	p, err := parseLog(path, data)
	if err != nil {
		return p, err
	}
	if p.header.ID != id {
		return p, &FormatError{Path: path, Reason: fmt.Sprintf("the header names session %s, not %s", p.header.ID, id)}
	}
	return p, nil
}

// Delete removes a stored session's log and sidecar. It is refused with
// an *OwnedError while any Log holds the session (in this process or
// another): it takes the writer lock itself before removing anything.
// A session file that cannot be read can be deleted too.
func (s *Store) Delete(id string) error {
	if !ValidID(id) {
		return invalidID(id)
	}
	path := filepath.Join(s.dir, logName(id))
	f, err := openLocked(id, path, openRead)
	if err != nil {
		return err
	}
	defer f.Close()
	var sidecar string
	if data, err := readSmall(f); err == nil {
		if h, err := headerFromPrefix(path, data); err == nil {
			sidecar = filepath.Join(s.dir, metaName(h.Cwd, id))
		}
	}
	// The log goes first: a sidecar without its log is ignored by List,
	// and Prune removes it (that is also what becomes of the sidecar of a
	// log whose header cannot be read).
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if sidecar != "" {
		if err := removeIfExists(sidecar); err != nil {
			return fmt.Errorf("delete session %s: %w", id, err)
		}
	}
	return s.fsyncDir()
}
