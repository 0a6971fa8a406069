package lsp

import (
	"scv/lsp/schema"
	"scv/runtime/session"
)

// heldFrame is a frame waiting for the running handlers' replies. Its
// bytes are charged to the outbound queue's budgets while it waits
// (Outbound.Reserve): held or queued, it is memory owed to the client.
// owed frames (a replay the client asked for) are held whatever the
// budgets hold.
type heldFrame struct {
	sid   string
	seq   uint64
	frame []byte
	owed  bool
}

// holdEvents marks a handler running; releaseEvents ends it and, when it
// was the last, sends what was held, in order, behind the replies.
func (c *conn) holdEvents() {
	c.mu.Lock()
	c.running++
	c.mu.Unlock()
}

func (c *conn) releaseEvents() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running--
	if c.running > 0 {
		return
	}
	held := c.held
	c.held = nil
	for _, h := range held {
		if h.owed {
			c.out.PushReserved(h.frame)
		} else {
			c.queueHeldLocked(h.sid, h.frame)
		}
	}
	// The writer may have drained while the events were held.
	c.reportLagLocked()
}

// Deliver implements session.Subscriber. Events that do not fit in the
// outbound budget are dropped and counted; one scv/session/lagged reports
// them before the next event that fits, or once the queue has drained
// (reportLag), so a slow client never slows the session or other clients,
// and knows to re-sync.
func (c *conn) Deliver(ev session.Event) {
	frame := frameOf(ev)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running > 0 {
		if !c.out.Reserve(len(frame)) {
			c.lag[ev.SessionID]++
			return
		}
		c.held = append(c.held, heldFrame{sid: ev.SessionID, seq: ev.Seq, frame: frame})
		return
	}
	c.offerLocked(ev.SessionID, frame)
}

// queueHeldLocked queues a held event, whose bytes are charged already,
// behind the lagged report its session owes, if that fits: the report
// and the event go in together or not at all (see offerLocked).
func (c *conn) queueHeldLocked(sid string, frame []byte) {
	if missed := c.lag[sid]; missed > 0 {
		report := laggedFrame(sid, missed)
		if !c.out.Reserve(len(report)) {
			c.out.Unreserve(len(frame))
			c.lag[sid]++
			return
		}
		c.out.PushReserved(report)
		delete(c.lag, sid)
	}
	c.out.PushReserved(frame)
}

func (c *conn) offerLocked(sid string, frame []byte) {
	if missed := c.lag[sid]; missed > 0 {
		// The report and the event go in together or not at all: a report
		// followed by a dropped event would need a second report at once.
		if c.out.Offer(append(laggedFrame(sid, missed), frame...)) {
			delete(c.lag, sid)
		} else {
			c.lag[sid]++
		}
		return
	}
	if !c.out.Offer(frame) {
		c.lag[sid]++
	}
}

// replayAfterReply puts what an attach owes its client (the gap notice and
// the replayed events) behind the reply and before the live events of the
// session that arrived since it subscribed (seq above the snapshot's). It
// must run inside the attach handler, while its events are held.
func (c *conn) replayAfterReply(sid string, a session.Attachment) {
	var owed []heldFrame
	if a.GapFrom != 0 {
		owed = append(owed, heldFrame{sid: sid, owed: true, frame: notificationFrame(schema.EvSessionGap,
			schema.SessionGapParams{SessionID: sid, FirstAvailableSeq: a.GapFrom})})
	}
	for _, ev := range a.Replay {
		owed = append(owed, heldFrame{sid: sid, seq: ev.Seq, owed: true, frame: frameOf(ev)})
	}
	for _, h := range owed {
		c.out.ReserveOwed(len(h.frame))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.lag, sid)
	at := len(c.held)
	for i, h := range c.held {
		if h.sid == sid && !h.owed && h.seq > a.Snapshot.Seq {
			at = i
			break
		}
	}
	c.held = append(c.held[:at:at], append(owed, c.held[at:]...)...)
}

// reportLag runs each time the writer has sent everything queued: it sends
// the lagged reports still owed. Waiting for the session's next event
// instead would leave a client whose last events were dropped (a turn's
// end) unaware of it for as long as the session stays quiet. While
// handlers run, the reports wait for the held events they follow.
func (c *conn) reportLag() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == 0 {
		c.reportLagLocked()
	}
}

func (c *conn) reportLagLocked() {
	for sid, missed := range c.lag {
		if c.out.Offer(laggedFrame(sid, missed)) {
			delete(c.lag, sid)
		}
	}
}

func laggedFrame(sid string, missed uint64) []byte {
	return notificationFrame(schema.EvSessionLagged, schema.SessionLaggedParams{SessionID: sid, Missed: missed})
}
