package acp

import (
	"scv/acp/schema"
	"scv/runtime/session"
)

// ListPageSize is how many sessions one session/list page holds.
const ListPageSize = 50

// listRows turns a page of the runtime's sessions (open and stored, newest
// first) into session/list rows; the cursor is the runtime's own, passed
// through. A session with no stored title shows the one this connection
// took from its first prompt.
func listRows(page session.ListPage, titleOf func(string) string) schema.SessionListResult {
	res := schema.SessionListResult{Sessions: make([]schema.SessionInfo, 0, len(page.Sessions))}
	for _, s := range page.Sessions {
		title := s.Title
		if title == "" {
			title = titleOf(s.SessionID)
		}
		updated := s.UpdatedAt
		if updated == "" {
			updated = s.CreatedAt
		}
		res.Sessions = append(res.Sessions, schema.SessionInfo{SessionID: s.SessionID, Cwd: s.Cwd, Title: title, UpdatedAt: updated})
	}
	if page.NextCursor != "" {
		next := page.NextCursor
		res.NextCursor = &next
	}
	return res
}
