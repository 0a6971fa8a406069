package acp

import (
	"sort"
	"strconv"

	"scv/acp/schema"
	"scv/runtime/session"
)

// ListPageSize is how many sessions one session/list page holds.
const ListPageSize = 50

// listPage filters the sessions by cwd, newest first, and cuts the page
// the cursor (an offset scv issued) points at.
func listPage(all []session.Summary, p schema.SessionListParams, titleOf func(string) string) (schema.SessionListResult, bool, error) {
	var rows []schema.SessionInfo
	for _, s := range all {
		if p.Cwd != nil && *p.Cwd != s.Cwd {
			continue
		}
		rows = append(rows, schema.SessionInfo{SessionID: s.SessionID, Cwd: s.Cwd, Title: titleOf(s.SessionID), UpdatedAt: s.CreatedAt})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].UpdatedAt > rows[j].UpdatedAt })
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(rows) {
			return schema.SessionListResult{}, false, invalidParams("params.cursor %q was not issued by this agent", *p.Cursor)
		}
		start = n
	}
	end := min(start+ListPageSize, len(rows))
	res := schema.SessionListResult{Sessions: append([]schema.SessionInfo{}, rows[start:end]...)}
	if end < len(rows) {
		next := strconv.Itoa(end)
		res.NextCursor = &next
	}
	return res, false, nil
}
