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
//
// Its memory does not grow with the store beyond one small map entry per
// sidecar: it keeps the page's rows only (see newest), so that a daemon
// listing a store of 10,000 sessions does not grow by their sum.
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
	var page Page
	for len(page.Sessions) < limit {
		// A row that cannot be listed is skipped, so a short page takes
		// the next entries after the last one looked at.
		entries, more, err := s.newest(hash, after, limit-len(page.Sessions))
		if err != nil {
			return Page{}, err
		}
		for _, e := range entries {
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
		if !more {
			break
		}
		last := entries[len(entries)-1]
		after = &last
		if len(page.Sessions) == limit {
			page.NextCursor = encodeCursor(last)
		}
	}
	return page, nil
}

// newest returns the n newest entries of scan (oldest last) and whether
// more follow them. It holds at most 2n+2 entries at a time, and copies
// the id of an entry only while the entry may still make the cut.
func (s *Store) newest(hash string, after *entry, n int) ([]entry, bool, error) {
	d, err := os.Open(s.dir)
	if err != nil {
		return nil, false, fmt.Errorf("read the session store: %w", err)
	}
	defer d.Close()
	keep := n + 1 // one more tells whether there are more
	top := make([]entry, 0, 2*keep)
	var cut *entry // the oldest kept after the last trim
	err = s.scan(d, hash, after, func(e entry) {
		if cut != nil && newer(*cut, e) < 0 {
			return // older than the cut: top holds keep newer ones
		}
		e.id, e.meta = strings.Clone(e.id), strings.Clone(e.meta)
		top = append(top, e)
		if len(top) == cap(top) {
			slices.SortFunc(top, newer)
			top = top[:keep]
			last := top[keep-1]
			cut = &last
		}
	})
	if err != nil {
		return nil, false, err
	}
	slices.SortFunc(top, newer)
	more := len(top) > n
	top = top[:min(n, len(top))]
	if hash == "" && len(top) > 0 {
		err = s.findSidecars(d, top)
	}
	return top, more, err
}

// findSidecars fills in the sidecar names of entries found without a
// filter: a second pass over the directory's names, which is cheaper than
// holding the names of every sidecar from the first.
func (s *Store) findSidecars(d *os.File, entries []entry) error {
	at := make(map[string]int, len(entries))
	for i, e := range entries {
		at[e.id] = i
	}
	return eachName(d, func(name []byte) {
		if _, id, ok := parseMetaName(transient(name)); ok {
			if i, ok := at[id]; ok {
				entries[i].meta = string(name)
			}
		}
	})
}

// scan calls found for each log in the open store directory d whose
// sidecar names cwd hash hash (any log when hash is empty) and that comes
// after the cursor position (all when nil), in directory order. It stats
// the logs that pass the filter relative to d. The entry's strings are
// valid during the call only. Without a filter its entries have no
// sidecar name (see findSidecars).
func (s *Store) scan(d *os.File, hash string, after *entry, found func(entry)) error {
	dirfd := int(d.Fd())
	return eachName(d, func(b []byte) {
		name := transient(b)
		var id, meta string
		if hash != "" {
			h, sid, ok := parseMetaName(name)
			if !ok || h != hash {
				return
			}
			id, meta = sid, name
		} else if lid, ok := parseLogName(name); ok {
			id = lid
		} else {
			return
		}
		var st unix.Stat_t
		if unix.Fstatat(dirfd, logName(id), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return // removed meanwhile, a sidecar without its log, or not a file
		}
		e := entry{id: id, meta: meta, updated: time.Unix(st.Mtim.Unix())}
		if after == nil || newer(*after, e) < 0 {
			found(e)
		}
	})
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
