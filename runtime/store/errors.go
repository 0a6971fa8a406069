package store

import (
	"errors"
	"fmt"
)

// Sentinels to test errors with errors.Is; the typed errors below carry
// the details and match them.
var (
	// ErrOwned: another open Log (in this or another process) holds the
	// session's writer lock.
	ErrOwned = errors.New("session is owned by another scv process")
	// ErrNotFound: no stored session has that id.
	ErrNotFound = errors.New("session not found")
	// ErrExists: Create was given the id of a stored session.
	ErrExists = errors.New("session already exists")
	// ErrInvalidID: the id cannot name a session (see ValidID).
	ErrInvalidID = errors.New("invalid session id")
	// ErrFormat: a file is not a session file this scv can read.
	ErrFormat = errors.New("unreadable session file")
	// ErrClosed: the Log was closed.
	ErrClosed = errors.New("session log is closed")
	// ErrWrite: the session file could not be written or synced (a full
	// disk, an I/O error). Nothing that was appended is lost: it stays
	// buffered for the next Sync, except the record a failed Commit took
	// back.
	ErrWrite = errors.New("the session file could not be written")
	// ErrTooLarge: a record would make the session file larger than the
	// store's MaxLogBytes (see TooLargeError).
	ErrTooLarge = errors.New("session file too large")
)

// TooLargeError refuses a record that would make a session file larger
// than the store's bound, which keeps every stored session loadable.
type TooLargeError struct {
	ID    string
	Size  int64 // the file's size with the record
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("session %s: the record would make its file %d bytes, more than the store's limit of %d (sessions.max_log_bytes)", e.ID, e.Size, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// OwnedError is returned when the session's writer lock is held: only the
// process that holds it may write the session.
type OwnedError struct {
	ID   string
	Path string
}

func (e *OwnedError) Error() string {
	return fmt.Sprintf("session %s is owned by another scv process (the daemon, or another scv lsp) that holds the lock on %s: "+
		"attach to it through that process (scv attach %s), or stop that process first", e.ID, e.Path, e.ID)
}

func (e *OwnedError) Is(target error) bool { return target == ErrOwned }

// FormatError names a session file that cannot be read and why. Version is
// the format version the file declares when that is the reason.
type FormatError struct {
	Path    string
	Version int
	Reason  string
}

func (e *FormatError) Error() string { return fmt.Sprintf("session file %s: %s", e.Path, e.Reason) }

func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func invalidID(id string) error {
	return fmt.Errorf("%w %q: use 1 to %d characters of A-Z, a-z, 0-9 and '-', not starting with '-'", ErrInvalidID, id, MaxIDLength)
}

func notFound(id string) error { return fmt.Errorf("%w: %s", ErrNotFound, id) }

// Warning is a problem found while reading a session file that did not
// stop it from loading: a torn last line or a bad line that was skipped.
type Warning struct {
	Path   string
	Line   int   // 1-based line number in the file
	Offset int64 // byte offset of the line
	// Problem says what was wrong and what the store did about it.
	Problem string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Problem) }
