package store

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ListOptions filter and page List.
type ListOptions struct {
	// Cwd keeps only the sessions created in this directory.
	Cwd string
	// Cursor is a previous page's NextCursor: the page continues after it.
	Cursor string
	// Limit is the page size: DefaultListLimit when 0, at most
	// MaxListLimit (a larger value is cut to it).
	Limit int
}

// Page is one page of List.
type Page struct {
	Sessions []Summary
	// NextCursor continues the listing; empty on the last page.
	NextCursor string
	// Problems names the files of this page's range that could not be
	// listed (for example of an unknown format version); they are skipped.
	Problems []error
}

// ErrBadCursor: a List cursor that List did not make.
var ErrBadCursor = errors.New("invalid list cursor")

// entry is a stored log seen in the directory: what ordering needs.
type entry struct {
	id      string
	meta    string // the sidecar's name, when there is one
	updated time.Time
}

// newer orders entries newest first, then by id, so the order is total
// and a cursor names one position in it.
func newer(a, b entry) int {
	if c := b.updated.Compare(a.updated); c != 0 {
		return c
	}
	return strings.Compare(b.id, a.id)
}

// List returns stored sessions newest first (by UpdatedAt). It does not
// load them: it reads the directory, stats the logs that pass the Cwd
// filter (the cwd hash is in their names), and reads the sidecars of the
// returned page only. The cursor holds the last row's UpdatedAt and id,
// so sessions created or updated meanwhile move before it and do not
// shift the pages after it.
func (s *Store) List(opts ListOptions) (Page, error) {
	limit := opts.Limit
	switch {
	case limit < 0:
		return Page{}, fmt.Errorf("list sessions: limit %d is negative", limit)
	case limit == 0:
		limit = DefaultListLimit
	case limit > MaxListLimit:
		limit = MaxListLimit
	}
	var after *entry
	if opts.Cursor != "" {
		c, err := decodeCursor(opts.Cursor)
		if err != nil {
			return Page{}, err
		}
		after = &c
	}
	hash := ""
	if opts.Cwd != "" {
		hash = CwdHash(opts.Cwd)
	}
	entries, err := s.scan(hash, after)
	if err != nil {
		return Page{}, err
	}
	slices.SortFunc(entries, newer)

	var page Page
	for i, e := range entries {
		if len(page.Sessions) == limit {
			last := entries[i-1]
			page.NextCursor = encodeCursor(last)
			break
		}
		sum, err := s.summary(e)
		if err != nil {
			page.Problems = append(page.Problems, err)
			continue
		}
		if opts.Cwd != "" && sum.Cwd != filepath.Clean(opts.Cwd) {
			continue // another directory with the same 48-bit hash
		}
		page.Sessions = append(page.Sessions, sum)
	}
	return page, nil
}

// scan lists the logs in the directory whose sidecar names cwd hash
// hash (any log when hash is empty) and that come after the cursor
// position (all when nil). It reads names, and stats the logs that pass
// the filter relative to the open directory.
func (s *Store) scan(hash string, after *entry) ([]entry, error) {
	d, err := os.Open(s.dir)
	if err != nil {
		return nil, fmt.Errorf("read the session store: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read the session store %s: %w", s.dir, err)
	}
	var ids []string
	sidecars := make(map[string]string)
	for _, name := range names {
		if hash != "" && !strings.HasPrefix(name, hash) {
			continue
		}
		if h, id, ok := parseMetaName(name); ok {
			sidecars[id] = name
			if hash != "" && h == hash {
				ids = append(ids, id)
			}
		} else if id, ok := parseLogName(name); ok && hash == "" {
			ids = append(ids, id)
		}
	}
	dirfd := int(d.Fd())
	entries := make([]entry, 0, len(ids))
	for _, id := range ids {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, logName(id), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue // removed meanwhile, a sidecar without its log, or not a file
		}
		e := entry{id: id, meta: sidecars[id], updated: time.Unix(st.Mtim.Unix())}
		if after != nil && newer(*after, e) >= 0 {
			continue
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// summary builds a row from the sidecar, or from the log's header when
// the sidecar is missing.
func (s *Store) summary(e entry) (Summary, error) {
	sum := Summary{ID: e.id, UpdatedAt: e.updated}
	if sc := s.readSidecar(e.meta, e.id); e.meta != "" && sc != nil {
		sum.Title, sum.Cwd, sum.Model, sum.CreatedAt = sc.Title, sc.Cwd, sc.Model, sc.CreatedAt
		sum.Turns, sum.Queued = sc.Turns, sc.Queued
		return sum, nil
	}
	h, err := readHeader(filepath.Join(s.dir, logName(e.id)))
	if err != nil {
		return sum, err
	}
	sum.Title, sum.Cwd, sum.Model, sum.CreatedAt = h.Title, h.Cwd, h.Model, h.CreatedAt
	return sum, nil
}

func encodeCursor(e entry) string {
	raw := strconv.FormatInt(e.updated.UnixNano(), 10) + "." + e.id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(c string) (entry, error) {
	bad := fmt.Errorf("%w %q: pass back a NextCursor from a previous page", ErrBadCursor, c)
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return entry{}, bad
	}
	ns, id, ok := strings.Cut(string(raw), ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || !ValidID(id) {
		return entry{}, bad
	}
	return entry{id: id, updated: time.Unix(0, n)}, nil
}
