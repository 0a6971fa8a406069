package session

import (
	"encoding/json"
	"sync"
)

// An event's encodings: the JSON measured when it was emitted, and the
// bytes each front door renders of it, cached on the event so that every
// connection and every replay share them.

// Encoded returns the event as an encoder identified by key renders it,
// calling encode the first time only. The bytes are shared by every
// connection and every replay of the event, so a front door encodes each
// event once per dialect; key is any comparable value private to that door.
//
// The cache lives on the event rather than in each door so that a replay
// from the ring, a late subscriber and a live delivery all find the same
// bytes without a door keeping its own (session, seq) table.
func (e Event) Encoded(key any, encode func(Event) []byte) []byte {
	if e.memo == nil {
		return encode(e)
	}
	m := e.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.first.bytes != nil && m.first.key == key {
		return m.first.bytes
	}
	for _, c := range m.more {
		if c.key == key {
			return c.bytes
		}
	}
	b := encode(e)
	if m.first.bytes == nil {
		m.first = memoEntry{key, b}
	} else {
		m.more = append(m.more, memoEntry{key, b})
	}
	return b
}

// memo holds an event's encodings; the first dialect's sits inline, so
// the common case of one dialect costs no slice.
type memo struct {
	mu    sync.Mutex
	first memoEntry
	more  []memoEntry
}

// memoSlab hands out an event's memo from a block allocated for many, so
// that a streamed delta does not cost an allocation for its memo. A block
// lives while any of its events does; the replay ring holds that many
// anyway.
type memoSlab []memo

// memoSlabSize is how many memos one block holds.
const memoSlabSize = 64

func (m *memoSlab) next() *memo {
	if len(*m) == 0 {
		*m = make(memoSlab, memoSlabSize)
	}
	first := &(*m)[0]
	*m = (*m)[1:]
	return first
}

// bytes returns the bytes of the encodings cached so far.
func (m *memo) bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.first.bytes)
	for _, c := range m.more {
		n += len(c.bytes)
	}
	return n
}

// forget drops the cached encodings. The ring calls it on an event it
// lets go: the memo sits in a block shared with newer events, which would
// otherwise keep the encodings alive. Whoever still holds the event and
// asks for an encoding gets it made again.
func (m *memo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.first = memoEntry{}
	m.more = nil
}

type memoEntry struct {
	key   any
	bytes []byte
}

// PayloadJSON returns the JSON object of the event's members, reusing
// the encoding made when the event was measured.
func (e Event) PayloadJSON() ([]byte, error) {
	if e.json != nil {
		return e.json, nil
	}
	return json.Marshal(e.Payload)
}
