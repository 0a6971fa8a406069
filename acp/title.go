package acp

import (
	"strings"
	"unicode/utf8"

	"scv/acp/schema"
)

// MaxTitleRunes bounds the title taken from a session's first prompt when
// the runtime has none stored for it (no scv/session/rename yet).
const MaxTitleRunes = 80

// titleOfPrompt is the first non-blank line of a prompt, cut to MaxTitleRunes.
func titleOfPrompt(prompt string) string {
	line := ""
	for l := range strings.SplitSeq(prompt, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	if utf8.RuneCountInString(line) <= MaxTitleRunes {
		return line
	}
	return string([]rune(line)[:MaxTitleRunes-1]) + "…"
}

// noteTitle gives a session its title from the first prompt this
// connection sees of it, and tells the client.
func (d *Door) noteTitle(sid, prompt string) {
	title := titleOfPrompt(prompt)
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
