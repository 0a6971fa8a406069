package acp

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf8"

	"scv/internal/jsonstr"

	"scv/acp/schema"
	"scv/runtime/session"
	"scv/runtime/tools"
)

// A running shell call's output (session.ToolOutput, scv/tool/output)
// reaches an ACP client as tool_call_update in_progress updates. ACP's
// tool_call_update replaces a call's content instead of appending to it,
// so each update carries the tail of the output so far as one text block:
// at most MaxLiveOutputBytes of it, cut at a character boundary, with a
// first line saying how many earlier bytes are not shown. The runtime
// already sends at most one chunk per tools.OutputInterval per call, and
// every chunk holds new output, so there is at most one update per chunk
// (fewer when chunks waited for a slow client, or come from a loaded
// transcript: they are shown together). The final update (completed or
// failed) carries the tool's result as before.

// MaxLiveOutputBytes bounds the output one live update of a running
// shell call shows: its last 64 KiB. The whole result (up to
// tools.max_output_bytes) comes with the call's final update.
const MaxLiveOutputBytes = 64 << 10

// MaxLiveCalls bounds how many running calls a connection keeps an output
// tail for; past it the call updated longest ago is forgotten (its next
// update starts again from its next chunk). A turn runs its tool calls one
// at a time, so this is only reached by many sessions running at once.
const MaxLiveCalls = 16

// maxTailCap bounds the array a tail keeps between updates: one large
// chunk grows it, and the tail then gives the excess back.
const maxTailCap = 8 * MaxLiveOutputBytes

// liveLimits are the bounds of live output, advertised at initialize.
func liveLimits() schema.Limits {
	return schema.Limits{
		LiveOutputBytes:      MaxLiveOutputBytes,
		LiveOutputCalls:      MaxLiveCalls,
		ToolOutputIntervalMs: int(tools.OutputInterval / time.Millisecond),
	}
}

// acpOutput is this door's key for a ToolOutput chunk's escaped text in
// the event's encoding memo: every ACP connection shares the escaping,
// which is the work that grows with the output; each connection then
// only copies its tail into a frame. (The frame itself is not memoized:
// it holds up to MaxLiveOutputBytes for a chunk of any size, and the
// session's replay ring keeps each event's memo alive.)
type acpOutput struct{}

// escapedChunk is the chunk as JSON string contents, without the quotes.
func escapedChunk(ev session.Event, chunk string) []byte {
	b := ev.Encoded(acpOutput{}, func(session.Event) []byte { return jsonstr.Append(nil, chunk) })
	return b[1 : len(b)-1]
}

// outputTail is the end of one running call's output, kept JSON-escaped
// so that each update copies it instead of escaping it again.
type outputTail struct {
	esc     []byte // the shown output, escaped, without quotes
	raw     int    // the bytes of output esc stands for
	dropped int    // bytes of output cut from the front
	used    uint64 // when it last grew, in the door's count of chunks
	unsent  bool   // grew since its last update
}

// add appends a chunk (escaped, standing for raw bytes of output) and
// cuts the front down to MaxLiveOutputBytes.
func (t *outputTail) add(esc []byte, raw int) {
	if raw >= MaxLiveOutputBytes {
		// The chunk alone fills the view: none of the tail stays, and
		// only the chunk's own end is copied.
		at, cut := escapedCut(esc, raw-MaxLiveOutputBytes)
		t.dropped += t.raw + cut
		t.esc, t.raw = t.esc[:0], 0
		esc, raw = esc[at:], raw-cut
	}
	t.esc = append(t.esc, esc...)
	t.raw += raw
	if over := t.raw - MaxLiveOutputBytes; over > 0 {
		at, cut := escapedCut(t.esc, over)
		t.esc = t.esc[:copy(t.esc, t.esc[at:])]
		t.raw -= cut
		t.dropped += cut
	}
	if cap(t.esc) > maxTailCap {
		t.esc = append([]byte(nil), t.esc...)
	}
}

// escapedCut finds where to cut at least n bytes of output from the front
// of escaped text: after a whole escape sequence and at the start of a
// character. It returns the offset in esc and the output bytes cut. Runs
// of plain bytes are skipped at memchr speed: each stands for itself.
func escapedCut(esc []byte, n int) (at, cut int) {
	for at < len(esc) && cut < n {
		if esc[at] != '\\' {
			run := bytes.IndexByte(esc[at:], '\\')
			if run < 0 {
				run = len(esc) - at
			}
			step := min(run, n-cut)
			at, cut = at+step, cut+step
			continue
		}
		if at+6 <= len(esc) && esc[at+1] == 'u' {
			// jsonstr escapes control characters, U+2028, U+2029 and a
			// byte that is not UTF-8 (as U+FFFD; chunks are UTF-8), never
			// a surrogate, so the rune's length is what it stands for.
			cut += max(utf8.RuneLen(rune(hexValue(esc[at+2:at+6]))), 1)
			at += 6
			continue
		}
		at, cut = at+2, cut+1 // \n, \", \\ and the like: one byte
	}
	for at < len(esc) && !utf8.RuneStart(esc[at]) {
		at, cut = at+1, cut+1 // the rest of a character cut into
	}
	return min(at, len(esc)), cut
}

// hexValue reads the four hex digits of a \u escape.
func hexValue(h []byte) int {
	v := 0
	for _, c := range h {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v |= int(c-'A') + 10
		}
	}
	return v
}

// liveKey names a running call.
type liveKey struct{ sid, callID string }

// liveTails are a connection's running calls' output tails. The pump
// alone uses it, so it has no lock.
type liveTails struct {
	calls  map[liveKey]*outputTail
	chunks uint64    // chunks seen: the clock of outputTail.used
	unsent []liveKey // the calls whose tails grew since flushLive
	frame  []byte    // the last update built, reused: lineWriter copies it
}

// add appends a chunk to its call's tail, starting one (and forgetting the
// least recently grown past MaxLiveCalls) for a call not seen yet.
func (l *liveTails) add(k liveKey, esc []byte, raw int) *outputTail {
	if l.calls == nil {
		l.calls = map[liveKey]*outputTail{}
	}
	l.chunks++
	t := l.calls[k]
	if t == nil {
		if len(l.calls) >= MaxLiveCalls {
			l.forgetOldest()
		}
		t = &outputTail{}
		l.calls[k] = t
	}
	t.used = l.chunks
	t.add(esc, raw)
	return t
}

func (l *liveTails) forgetOldest() {
	var oldest liveKey
	var at uint64
	for k, t := range l.calls {
		if at == 0 || t.used < at {
			oldest, at = k, t.used
		}
	}
	delete(l.calls, oldest)
}

// end forgets a call that completed.
func (l *liveTails) end(k liveKey) { delete(l.calls, k) }

// endSession forgets the calls of a session whose turn ended or which
// this connection left.
func (l *liveTails) endSession(sid string) {
	for k := range l.calls {
		if k.sid == sid {
			delete(l.calls, k)
		}
	}
}

// noteOutput adds a running call's new chunk to its tail; flushLive sends
// the update. Between the two the pump may meet more chunks of the call
// (a batch of events that waited, or a loaded transcript's), which then
// cost one update, not one each.
func (d *Door) noteOutput(ev session.Event, p session.ToolOutput) {
	k := liveKey{ev.SessionID, p.CallID}
	if t := d.live.add(k, escapedChunk(ev, p.Chunk), len(p.Chunk)); !t.unsent {
		t.unsent = true
		d.live.unsent = append(d.live.unsent, k)
	}
}

// flushLive sends the update of every call whose tail grew since its last
// one and is still running. The pump calls it at the end of a batch and
// before an action ordered among the events.
func (d *Door) flushLive() {
	for _, k := range d.live.unsent {
		t := d.live.calls[k]
		if t == nil || !t.unsent {
			continue // completed, or forgotten, meanwhile
		}
		t.unsent = false
		d.live.frame = appendLiveOutput(d.live.frame[:0], k.sid, k.callID, t)
		_ = d.out.write(d.live.frame)
	}
	clear(d.live.unsent)
	d.live.unsent = d.live.unsent[:0]
	if cap(d.live.frame) > maxTailCap {
		d.live.frame = nil
	}
}

// endLive forgets the tails an event ends: its call's when the call
// completed, its session's when a turn ended or the session was cleared
// or closed.
func (d *Door) endLive(ev session.Event) {
	switch p := ev.Payload.(type) {
	case session.ToolCompleted:
		d.live.end(liveKey{ev.SessionID, p.CallID})
	case session.TurnCompleted, session.TurnCancelled, session.TurnFailed, session.SessionCleared, session.SessionClosed:
		d.live.endSession(ev.SessionID)
	}
}

// appendLiveOutput writes the tool_call_update of a running call showing
// its tail, without reflection: the escaped tail is copied as it is.
func appendLiveOutput(dst []byte, sid, callID string, t *outputTail) []byte {
	const head = `{"jsonrpc":"2.0","method":"` + schema.MethodSessionUpdate + `","params":{"sessionId":`
	const call = `,"update":{"sessionUpdate":"` + schema.UpdateToolCallUpdate + `","toolCallId":`
	const content = `,"status":"` + schema.StatusInProgress + `","content":[{"type":"content","content":{"type":"text","text":"`
	const tail = "\"}}]}}}\n"
	if dst == nil {
		dst = make([]byte, 0, len(head)+len(call)+len(content)+len(tail)+len(sid)+len(callID)+len(t.esc)+64)
	}
	dst = append(dst, head...)
	dst = jsonstr.Append(dst, sid)
	dst = append(dst, call...)
	dst = jsonstr.Append(dst, callID)
	dst = append(dst, content...)
	if t.dropped > 0 {
		dst = append(dst, "[… "...)
		dst = strconv.AppendInt(dst, int64(t.dropped), 10)
		dst = append(dst, ` earlier bytes not shown]\n`...)
	}
	dst = append(dst, t.esc...)
	return append(dst, tail...)
}
