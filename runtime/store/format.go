package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatVersion is the version of the on-disk format this package writes
// and the only one it reads. It is the "v" of every header and sidecar.
const FormatVersion = 1

// Limits of the store. Each one is part of what the store promises; an
// input beyond a limit gets an error naming it, never a silent cut.
const (
	// MaxIDLength bounds a session id (ids are file-name components).
	MaxIDLength = 128
	// MaxTypeLength bounds a record type.
	MaxTypeLength = 64
	// MaxRecordBytes bounds one encoded record line.
	MaxRecordBytes = 16 << 20
	// MaxHeaderBytes bounds the header line (List reads it when a
	// sidecar is missing).
	MaxHeaderBytes = 64 << 10
	// MaxLogBytes bounds a session file that Load and Read accept: they
	// hold the whole file in memory. A Log refuses records past its
	// store's Limits.MaxLogBytes, at most this, so a file it wrote always
	// loads.
	MaxLogBytes = 1 << 30
	// MaxSeq bounds a record's seq: 2^53-1, the largest integer every
	// JSON reader (JavaScript's numbers) holds exactly. A line with a
	// larger seq is not a record; one seq per event, it is never reached.
	MaxSeq = 1<<53 - 1
	// MaxTitleBytes bounds the title kept in a header or sidecar.
	MaxTitleBytes = 1024
	// TitleRunes is how many characters Title keeps of a prompt.
	TitleRunes = 80
	// DefaultListLimit and MaxListLimit bound a page of List.
	DefaultListLimit = 50
	MaxListLimit     = 500
	// cwdHashLen is the number of hex digits of the cwd hash that starts
	// every file name (48 bits).
	cwdHashLen = 12
	// flushBytes is how much Append buffers before it writes to the file.
	flushBytes = 64 << 10
	// maxUnsyncedBytes bounds what a Log holds in memory that is not
	// durable yet (records kept for a write that failed, or appended
	// since the last Sync): Append syncs past it, and refuses the record
	// when that sync fails.
	maxUnsyncedBytes = 8 << 20
	// staleTempAge is how old a leftover temporary file must be before
	// Prune removes it (younger ones may belong to a Create in progress).
	staleTempAge = 24 * time.Hour
)

const (
	logSuffix  = ".jsonl"
	metaSuffix = ".meta.json"
	tempPrefix = ".tmp-"
)

// Header is the first line of a session file: what the session is.
type Header struct {
	// Version is set by the store to FormatVersion when it writes.
	Version        int        `json:"v"`
	ID             string     `json:"id"`
	Cwd            string     `json:"cwd"`
	Model          string     `json:"model,omitempty"`
	Provider       string     `json:"provider,omitempty"`
	ApprovalPolicy string     `json:"approvalPolicy,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	Title          string     `json:"title,omitempty"`
	ForkedFrom     *ForkPoint `json:"forkedFrom,omitempty"`
	// Ceiling is the session's approval ceiling (runtime/ceiling), fixed
	// when it started; the store keeps it without reading it.
	Ceiling json.RawMessage `json:"ceiling,omitempty"`
}

// ForkPoint names the session and the last record a fork was copied from.
type ForkPoint struct {
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
}

// Record is one line after the header. The store does not interpret Data;
// the session layer defines the record types and their payloads.
type Record struct {
	// Seq is strictly increasing within a file and never 0.
	Seq uint64 `json:"seq"`
	// Type is 1 to MaxTypeLength characters of [A-Za-z0-9._/-].
	Type string `json:"type"`
	// At is when the record happened; Append fills a zero At with now.
	At time.Time `json:"at"`
	// Data is any JSON value (nil is stored as null and read back as nil).
	// Records returned by Load and Read share one buffer: do not modify.
	Data []byte `json:"data"`
}

// Meta is what the owner of a session keeps current for listing without
// loading: it is stored in a small sidecar file beside the log.
type Meta struct {
	Title  string `json:"title,omitempty"`
	Turns  int    `json:"turns"`
	Queued int    `json:"queued"`
	// Model is the model in force when it is no longer the header's (a
	// live switch); empty keeps the header's.
	Model string `json:"model,omitempty"`
}

// Summary is one row of List.
type Summary struct {
	ID        string
	Title     string
	Cwd       string
	Model     string
	CreatedAt time.Time
	// UpdatedAt is when the log file last changed (its mtime): the last
	// time appended records reached the file.
	UpdatedAt time.Time
	Turns     int
	Queued    int
}

// Title makes a session title from a prompt: its first non-blank line,
// trimmed, cut to TitleRunes characters.
func Title(prompt string) string {
	s := strings.ToValidUTF8(strings.TrimSpace(prompt), "\uFFFD")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) <= TitleRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == TitleRunes {
			return strings.TrimSpace(s[:i])
		}
		n++
	}
	return s
}

// ValidID reports whether id can name a session: 1 to MaxIDLength
// characters of [A-Za-z0-9-], starting with a letter or digit, so it is
// one safe file-name component and never looks like a flag.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLength || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validType(t string) bool {
	if t == "" || len(t) > MaxTypeLength {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// CwdHash is the prefix of the file names of the sessions of cwd.
func CwdHash(cwd string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return hex.EncodeToString(sum[:cwdHashLen/2])
}

func logName(id string) string { return id + logSuffix }

// metaName is the sidecar of session id created in cwd: the cwd hash in
// its name lets List filter by directory without reading files.
func metaName(cwd, id string) string { return CwdHash(cwd) + "-" + id + metaSuffix }

// parseLogName returns the session id of a log file name.
func parseLogName(name string) (id string, ok bool) {
	id, ok = strings.CutSuffix(name, logSuffix)
	return id, ok && ValidID(id)
}

// parseMetaName splits a sidecar file name into its cwd hash and id.
func parseMetaName(name string) (hash, id string, ok bool) {
	rest, ok := strings.CutSuffix(name, metaSuffix)
	if !ok || len(rest) < cwdHashLen+2 || rest[cwdHashLen] != '-' {
		return "", "", false
	}
	hash, id = rest[:cwdHashLen], rest[cwdHashLen+1:]
	if !isHex(hash) || !ValidID(id) {
		return "", "", false
	}
	return hash, id, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
