package store

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// sidecar is the small file beside each log that List reads instead of
// the log: the header fields a listing shows and the owner's Meta.
type sidecar struct {
	Version   int       `json:"v"`
	ID        string    `json:"id"`
	Cwd       string    `json:"cwd"`
	Model     string    `json:"model,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	Title     string    `json:"title,omitempty"`
	Turns     int       `json:"turns"`
	Queued    int       `json:"queued"`
}

func (sc *sidecar) meta() Meta {
	if sc == nil {
		return Meta{}
	}
	return Meta{Title: sc.Title, Turns: sc.Turns, Queued: sc.Queued, Model: sc.Model}
}

// SetMeta replaces the session's sidecar with m atomically (a temporary
// file, synced, renamed over the old one), so a listing sees the old or
// the new value, never a mix. It does not sync the log: call it after Sync
// at the points where the session's title, turns or queue changed.
func (l *Log) SetMeta(m Meta) error {
	if len(m.Title) > MaxTitleBytes {
		return fmt.Errorf("session %s: title is %d bytes, more than MaxTitleBytes (%d)", l.header.ID, len(m.Title), MaxTitleBytes)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return err
	}
	h := l.header
	model := h.Model
	if m.Model != "" {
		model = m.Model
	}
	data, err := json.Marshal(sidecar{Version: FormatVersion, ID: h.ID, Cwd: h.Cwd, Model: model, CreatedAt: h.CreatedAt,
		Title: m.Title, Turns: m.Turns, Queued: m.Queued})
	if err != nil {
		return fmt.Errorf("session %s: encode the sidecar: %w", h.ID, err)
	}
	f, tmp, err := newTemp(l.s.dir)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = l.s.fsync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// rename replaces a symlink planted at the name; it never follows it.
		err = os.Rename(tmp, filepath.Join(l.s.dir, metaName(h.Cwd, h.ID)))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("session %s: write the sidecar: %w: %w", h.ID, ErrWrite, err)
	}
	return nil
}

// readMeta reads the sidecar of session id created in cwd; nil when it
// is missing or unreadable (List then falls back to the log's header).
func (s *Store) readMeta(cwd, id string) *sidecar {
	return s.readSidecar(metaName(cwd, id), id)
}

func (s *Store) readSidecar(name, id string) *sidecar {
	f, err := os.OpenFile(filepath.Join(s.dir, name), openRead, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := readSmall(f)
	if err != nil {
		return nil
	}
	var sc sidecar
	if json.Unmarshal(data, &sc) != nil || sc.Version != FormatVersion || sc.ID != id {
		return nil
	}
	return &sc
}

// readHeader reads only the header line of the log at path.
func readHeader(path string) (Header, error) {
	f, err := os.OpenFile(path, openRead, 0)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	data, err := readSmall(f)
	if err != nil {
		return Header{}, err
	}
	return headerFromPrefix(path, data)
}

func headerFromPrefix(path string, data []byte) (Header, error) {
	for i, c := range data {
		if c == '\n' {
			return parseHeader(path, data[:i])
		}
	}
	if len(data) == 0 {
		return Header{}, &FormatError{Path: path, Reason: "the file is empty: it has no header"}
	}
	return Header{}, &FormatError{Path: path, Reason: fmt.Sprintf("no complete header line in its first %d bytes", MaxHeaderBytes)}
}

// readSmall reads up to MaxHeaderBytes from the start of f.
func readSmall(f *os.File) ([]byte, error) {
	size := int64(MaxHeaderBytes)
	if fi, err := f.Stat(); err == nil && fi.Size() < size {
		size = fi.Size()
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:n], nil
}
