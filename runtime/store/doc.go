// Package store keeps sessions on disk: one append-only JSON-lines file per
// session in one directory ($SCV_HOME/sessions), written by the one
// process that owns the session.
//
// # Layout
//
// The directory is created with mode 0700 and every file in it with mode
// 0600. A session with id ID created in directory CWD is two files:
//
//	ID.jsonl                  the log
//	<cwdhash>-ID.meta.json    its sidecar (cwd, model, title, turns, queued)
//
// where cwdhash is CwdHash(CWD), 12 hex digits of the SHA-256 of the clean
// path, so List can filter by directory from file names alone, and Load
// finds a log by its id with no directory scan. Ids are 1 to MaxIDLength
// characters of [A-Za-z0-9-] (ValidID); files are opened with O_NOFOLLOW
// and sidecars replaced by rename, so a symlink planted in the directory
// is never followed. Files named .tmp-* are writes in progress.
//
// # Format (version FormatVersion)
//
// The first line of a log is its Header, a JSON object whose "v" is the
// format version. Every following line is one Record:
//
//	{"seq":1,"type":"prompt","at":"2026-12-01T10:00:00.123Z","data":{...}}
//
// Seq is strictly increasing, never 0 and at most MaxSeq (2^53-1, exact
// in every JSON reader; a line with a larger seq is not a record); Type
// is chosen by the session layer (the store does not interpret Type or
// Data); At is UTC. A file
// whose header declares another version is refused with a *FormatError
// naming the file and the version.
//
// # Ownership
//
// Create, CreateFrom and Load return a *Log that holds the session's
// writer lock, an exclusive flock on the log, until Close (or until the
// process dies: the kernel drops the lock). While it is held, Load and
// Delete from any process, and from the same process, fail with an
// *OwnedError (errors.Is(err, ErrOwned)), and Prune skips the session.
// Read needs no lock.
//
// # Durability
//
//   - Append buffers the record in memory; it may be lost if the process
//     dies before the next Sync.
//   - Records are written to the file whole (never half a line), when the
//     buffer passes 64 KiB, at Sync and at Close; once written, they
//     survive the death of the process but not a crash of the machine.
//   - Sync and Close fsync the log: when they return nil, every record
//     appended before survives any crash.
//   - Create and CreateFrom return after the header and the given records
//     and the directory entry are fsynced; the file appears whole or not
//     at all.
//   - SetMeta replaces the sidecar atomically (temporary file, fsync,
//     rename); it does not sync the log.
//   - Delete fsyncs the directory after removing the files.
//
// # Write failures
//
// A write or fsync that fails (a full disk) loses nothing and does not
// stick: the file is cut back to its length at the last successful sync
// (so it never ends in half a record, and nothing the kernel may have
// dropped after a failed fsync is trusted), and every record appended
// since stays in memory and is written again by the next Sync, which
// succeeds once there is room. Sync, and an Append that cannot keep more
// unsynced (more than 8 MiB), return an error matching ErrWrite. Commit
// (append and sync, for a change that must be durable before it is
// answered) takes its record back when it fails, so the caller can
// refuse the change; the seq is then free for the next record.
//
// # Size
//
// A Log refuses a record that would make its file larger than the
// store's Limits.MaxLogBytes (at most MaxLogBytes, what Load accepts)
// with a *TooLargeError (errors.Is(err, ErrTooLarge)), so every file a Log
// wrote loads again.
//
// # Damage
//
// Load and Read report problems as Warnings and load the rest:
//
//   - a last line without a newline (a torn write: only a machine crash
//     leaves one) is skipped; Load truncates the file back to its last
//     complete line and fsyncs before appending resumes, so the warning is
//     reported once;
//   - a line in the middle that is not a record, or whose seq does not
//     follow, is skipped and left in the file (reported at every load);
//   - an empty file, an incomplete or non-JSON header, or an unknown
//     version is a *FormatError (errors.Is(err, ErrFormat)) naming the
//     file; nothing is loaded. A log with a header only loads with no
//     records.
//
// # Listing
//
// List does not load sessions and the Store caches nothing: it reads the
// directory's names, stats the logs that pass the cwd filter (UpdatedAt
// is the log's mtime), keeps the newest after the cursor, and reads the
// sidecars of the returned page only (the header when a sidecar is
// missing). It holds about two pages of rows and no name it does not
// keep, whatever the size of the store, so listing 10,000 sessions does
// not grow the process by their sum. Create
// writes the sidecar after the log; Load writes a missing one again. Pages hold
// DefaultListLimit rows unless asked otherwise, at most MaxListLimit. The
// cursor is the last row's UpdatedAt and id, so sessions added meanwhile
// do not shift later pages.
package store
