package acp

import (
	"scv/acp/schema"
	"scv/runtime/store"
)

// noteTitle gives a session its title from the first prompt this
// connection sees of it, and tells the client.
func (d *Door) noteTitle(sid, prompt string) {
	title := store.Title(prompt) // the title the runtime stores for it
	d.mu.Lock()
	st := d.sessions[sid]
	if st == nil || st.title != "" || title == "" {
		d.mu.Unlock()
		return
	}
	st.title = title
	d.mu.Unlock()
	d.sendTitle(sid, title)
}

// renamed takes a title the runtime stored (scv/session/rename in any
// window) over the one taken from a prompt.
func (d *Door) renamed(sid, title string) {
	d.mu.Lock()
	if st := d.sessions[sid]; st != nil {
		st.title = title
	}
	d.mu.Unlock()
	d.sendTitle(sid, title)
}

func (d *Door) sendTitle(sid, title string) {
	d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
		Update: schema.SessionInfoUpdate{SessionUpdate: schema.UpdateSessionInfo, Title: title}})
}

// titleOf is the title this connection knows for a session ("" if none).
func (d *Door) titleOf(sid string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.sessions[sid]; st != nil {
		return st.title
	}
	return ""
}
