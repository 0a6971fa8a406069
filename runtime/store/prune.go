package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Prune applies retention: it removes the sessions beyond the maxCount
// newest (by UpdatedAt) and those not updated for longer than maxAge. A
// zero maxCount or maxAge sets no limit of that kind. It never removes a
// session whose writer lock is held (it is open in this or another
// process) or one for which keep returns true; those still count toward
// maxCount. It also removes sidecars whose log is gone and temporary files
// older than a day left by interrupted writes. It returns the ids it
// removed; an error on one session does not stop the others.
func (s *Store) Prune(maxCount int, maxAge time.Duration, keep func(id string) bool) ([]string, error) {
	if maxCount < 0 || maxAge < 0 {
		return nil, fmt.Errorf("prune sessions: negative limit (max count %d, max age %s)", maxCount, maxAge)
	}
	d, err := os.Open(s.dir)
	if err != nil {
		return nil, fmt.Errorf("read the session store: %w", err)
	}
	var entries []entry
	err = s.scan(d, "", nil, func(e entry) {
		e.id = strings.Clone(e.id)
		entries = append(entries, e)
	})
	d.Close()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, newer)
	now := time.Now()
	var removed []string
	var errs []error
	for i, e := range entries {
		tooMany := maxCount > 0 && i >= maxCount
		tooOld := maxAge > 0 && now.Sub(e.updated) > maxAge
		if !tooMany && !tooOld || keep != nil && keep(e.id) {
			continue
		}
		switch err := s.Delete(e.id); {
		case err == nil:
			removed = append(removed, e.id)
		case errors.Is(err, ErrOwned), errors.Is(err, ErrNotFound):
			// running elsewhere, or removed meanwhile
		default:
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.sweep(now))
	return removed, errors.Join(errs...)
}

// sweep removes what interrupted writes and deletes left behind.
func (s *Store) sweep(now time.Time) error {
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	var errs []error
	err = eachName(d, func(b []byte) {
		name := transient(b)
		if strings.HasPrefix(name, tempPrefix) {
			path := filepath.Join(s.dir, name)
			if fi, err := os.Lstat(path); err == nil && now.Sub(fi.ModTime()) > staleTempAge {
				errs = append(errs, removeIfExists(path))
			}
			return
		}
		// Create writes a sidecar after its log, so a sidecar whose log
		// is gone belongs to a deleted session.
		if _, id, ok := parseMetaName(name); ok {
			if _, err := os.Lstat(filepath.Join(s.dir, logName(id))); errors.Is(err, os.ErrNotExist) {
				errs = append(errs, removeIfExists(filepath.Join(s.dir, name)))
			}
		}
	})
	return errors.Join(append(errs, err)...)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
