package acp

import (
	"fmt"

	"scv/acp/schema"
	"scv/internal/outbudget"
	"scv/runtime/session"
)

// deliver is the backend's sink: it never blocks the session.
func (d *Door) deliver(ev session.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return
	}
	it := item{ev: ev}
	if st := d.sessions[ev.SessionID]; st != nil {
		it.update, it.encoded = sharedUpdate(ev, st.cwd), true
	}
	size := queuedSize(it)
	switch {
	case !droppable(ev.Payload):
		d.acct.Charge(size)
	case !d.acct.Admit(size):
		d.lag[ev.SessionID]++
		return
	}
	d.queue = append(d.queue, it)
	d.wake.Broadcast()
}

// hold stops the pump from interpreting events until release.
func (d *Door) hold() {
	d.mu.Lock()
	d.holds++
	d.mu.Unlock()
}

func (d *Door) release() {
	d.mu.Lock()
	d.holds--
	d.wake.Broadcast()
	d.mu.Unlock()
}

// insertReplay puts a session's held events, then then, ahead of that
// session's live events that came after the snapshot. It runs while the
// caller holds the pump. The replay is owed to the client, so it is
// charged whatever the budgets hold; the read loop then takes no further
// request until the client has read it (waitRoom).
func (d *Door) insertReplay(snap session.Snapshot, events []session.Event, then func()) {
	owed := make([]item, 0, len(events)+1)
	size := 0
	for _, ev := range events {
		it := item{ev: ev, replay: true}
		it.update, it.encoded = sharedUpdate(ev, snap.Cwd), true
		size += queuedSize(it)
		owed = append(owed, it)
	}
	owed = append(owed, item{fn: then})
	d.mu.Lock()
	defer d.mu.Unlock()
	d.acct.Charge(size)
	at := len(d.queue)
	for i, it := range d.queue {
		if it.fn == nil && it.ev.SessionID == snap.SessionID && it.ev.Seq > snap.Seq {
			at = i
			break
		}
	}
	d.queue = append(d.queue[:at:at], append(owed, d.queue[at:]...)...)
	d.wake.Broadcast()
}

// waitRoom waits while the door's budgets are spent (outbudget.Account.Full),
// or until the door ends. The read loop calls it before taking a request:
// replies, replays and the updates a prompt's answer depends on are never
// dropped, so a client that sends requests without reading is slowed
// down here instead of growing the process's memory.
func (d *Door) waitRoom() {
	outbudget.WaitRoom(d.ctx, &d.mu, d.wake, func() bool { return d.acct.Full() && !d.done })
}

// maxSpareItems bounds the queue array the pump keeps between batches.
const maxSpareItems = 1 << 14

// pump interprets events in order until the door closes.
func (d *Door) pump() {
	for {
		d.mu.Lock()
		for !d.done && (d.holds > 0 || len(d.queue) == 0) {
			d.wake.Wait()
		}
		if d.done {
			d.mu.Unlock()
			return
		}
		batch := d.queue
		d.queue, d.spare = d.spare, nil
		charged := d.acct.Queued()
		d.mu.Unlock()
		d.out.gather()
		for _, it := range batch {
			d.process(it)
		}
		d.flushLive()
		d.reportLag()
		d.out.flush()
		d.mu.Lock()
		d.acct.Release(charged) // written now; deliver may have charged more since
		d.wake.Broadcast()      // a read loop waiting for room
		d.mu.Unlock()
		// The drained batch's array takes the next batch, so a stream of
		// deltas does not regrow the queue from nothing each time.
		clear(batch)
		if cap(batch) <= maxSpareItems {
			d.mu.Lock()
			d.spare = batch[:0]
			d.mu.Unlock()
		}
	}
}

func (d *Door) process(it item) {
	if it.fn != nil {
		d.flushLive()
		it.fn()
		return
	}
	ev := it.ev
	d.mu.Lock()
	st := d.sessions[ev.SessionID]
	d.mu.Unlock()
	if st == nil {
		d.live.endSession(ev.SessionID)
		return // a session this connection left
	}
	frame := it.update
	if !it.encoded {
		frame = sharedUpdate(ev, st.cwd)
	}
	if frame != nil {
		_ = d.out.write(frame)
	}
	switch p := ev.Payload.(type) {
	case session.SessionRenamed:
		d.renamed(ev.SessionID, p.Title)
		return
	case session.SessionRestored:
		d.restored(ev.SessionID, p)
		return
	case session.ToolOutput:
		d.noteOutput(ev, p)
		return
	}
	d.endLive(ev)
	d.turnEndNotice(ev)
	if it.replay {
		d.replayed(st, ev)
		return
	}
	switch p := ev.Payload.(type) {
	case session.TurnStarted:
		d.mu.Lock()
		st.running = p.TurnID
		w := d.byTurn[p.TurnID]
		if w == nil && p.QueueID != "" {
			if w = d.byQueue[p.QueueID]; w != nil {
				delete(d.byQueue, p.QueueID)
				d.byTurn[p.TurnID] = w
			}
		}
		d.mu.Unlock()
		if w == nil {
			d.userMessage(ev.SessionID, p.Prompt) // sent from another window
		}
		d.noteTitle(ev.SessionID, p.Prompt)
	case session.ApprovalRequested:
		d.askPermission(ev.SessionID, p.Approval)
	case session.ApprovalResolved:
		d.withdraw(p.ApprovalID)
	case session.TurnCompleted:
		d.endTurn(ev.SessionID, p.TurnID, schema.StopEndTurn, nil)
	case session.TurnCancelled:
		d.endTurn(ev.SessionID, p.TurnID, schema.StopCancelled, nil)
	case session.TurnFailed:
		if p.Code == "max_steps" {
			d.endTurn(ev.SessionID, p.TurnID, schema.StopMaxTurnRequests, nil)
		} else {
			d.endTurn(ev.SessionID, p.TurnID, "", rpcError(schema.CodeInternalError, p.Code, "the turn failed: "+p.Message))
		}
	case session.QueueRemoved:
		d.dropQueued(p.QueueID)
	case session.SessionConfigured:
		d.configured(ev.SessionID, p)
	case session.TurnSteered:
		d.userMessage(ev.SessionID, p.Prompt) // joined the running turn
	case session.SessionCleared, session.SessionClosed:
		d.dropSessionQueued(ev.SessionID)
	}
}

// replayed sends what a loaded transcript's event shows beyond its shared
// update: the prompts, and the answers that were stored whole (a stored
// transcript has no deltas; a turn still in memory may have them).
func (d *Door) replayed(st *sessState, ev session.Event) {
	switch p := ev.Payload.(type) {
	case session.TurnStarted:
		d.userMessage(ev.SessionID, p.Prompt)
		d.noteTitle(ev.SessionID, p.Prompt)
		st.streamed = false
	case session.TurnSteered:
		d.userMessage(ev.SessionID, p.Prompt)
	case session.AssistantDelta:
		st.streamed = true
	case session.AssistantCompleted:
		if !st.streamed && p.Content != "" {
			_ = d.out.write(appendChunk(nil, ev.SessionID, p.Content))
		}
		st.streamed = false
	}
}

// restored tells the user, as an agent message (ACP has no update for
// it), what a reload found interrupted: the session is paused until a
// window resumes its queue.
func (d *Door) restored(sid string, r session.SessionRestored) {
	msg := "\n\n[scv] This session was restored after the scv process serving it stopped."
	if r.InterruptedTurnID != "" {
		msg += " The turn that was running was interrupted; its answer is lost."
	}
	if n := len(r.CancelledApprovals); n > 0 {
		msg += fmt.Sprintf(" %d pending approval(s) were cancelled.", n)
	}
	if r.Queued > 0 {
		msg += fmt.Sprintf(" %d queued prompt(s) are kept.", r.Queued)
	}
	if r.Paused {
		msg += " The queue is paused until it is resumed."
	}
	_ = d.out.write(appendChunk(nil, sid, msg+"\n"))
}

// turnEndNotice tells the user, as an agent message before the prompt's
// answer (ACP has no field for it on the answer), the notice a turn's end
// carries: the session's file is nearly full. A replay sends it again.
func (d *Door) turnEndNotice(ev session.Event) {
	if notice := session.TurnEndNotice(ev.Payload); notice != "" {
		_ = d.out.write(appendChunk(nil, ev.SessionID, "\n\n[scv] Note: "+notice+".\n"))
	}
}

func (d *Door) userMessage(sid, prompt string) {
	d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
		Update: schema.Chunk{SessionUpdate: schema.UpdateUserMessageChunk, Content: schema.Text(prompt)}})
}

// endTurn answers the prompt whose turn ended, if it is this client's.
func (d *Door) endTurn(sid, turnID, stop string, failure *wireError) {
	d.mu.Lock()
	w := d.byTurn[turnID]
	delete(d.byTurn, turnID)
	if st := d.sessions[sid]; st != nil && st.running == turnID {
		st.running = ""
	}
	d.mu.Unlock()
	if w == nil {
		return
	}
	if failure != nil {
		d.replyError(w.id, failure)
		return
	}
	d.reply(w.id, schema.PromptResult{StopReason: stop})
}

// dropQueued answers a queued prompt that will never run (removed in
// another window) as cancelled.
func (d *Door) dropQueued(queueID string) {
	d.mu.Lock()
	w := d.byQueue[queueID]
	delete(d.byQueue, queueID)
	d.mu.Unlock()
	if w != nil {
		d.reply(w.id, schema.PromptResult{StopReason: schema.StopCancelled})
	}
}

// dropSessionQueued answers every queued prompt of a cleared or closed
// session as cancelled.
func (d *Door) dropSessionQueued(sid string) {
	d.mu.Lock()
	var ids []string
	for q, w := range d.byQueue {
		if w.sid == sid {
			ids = append(ids, q)
		}
	}
	d.mu.Unlock()
	for _, q := range ids {
		d.dropQueued(q)
	}
}
