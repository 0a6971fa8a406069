package sessions

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"scv/internal/termsafe"
	"scv/lsp/schema"
)

// titleCellBytes bounds the title as the table shows it.
const titleCellBytes = 60

// Row is one row of scv/session/list. Title, UpdatedAt and Turns come
// with stored sessions; a server without them leaves them empty (Turns
// nil), and the table shows what there is.
type Row struct {
	schema.Summary
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
	Turns     *int   `json:"turns,omitempty"`
}

// Page is the result of scv/session/list.
type Page struct {
	Sessions   []Row  `json:"sessions"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// List asks for the sessions that p selects, newest first. A server that
// does not filter or page yet (it lists only the sessions it has loaded)
// is filtered and cut here, so the answer means the same from either.
func List(ctx context.Context, c *Conn, p schema.SessionListParams) (Page, error) {
	if p.Cwd != "" {
		p.Cwd = filepath.Clean(p.Cwd)
	}
	var page Page
	if err := c.Call(ctx, schema.MethodSessionList, p, &page); err != nil {
		return Page{}, err
	}
	if p.Cwd != "" {
		page.Sessions = slices.DeleteFunc(page.Sessions, func(r Row) bool { return filepath.Clean(r.Cwd) != p.Cwd })
	}
	slices.SortStableFunc(page.Sessions, func(a, b Row) int { return stamp(b.updated()).Compare(stamp(a.updated())) })
	if p.Limit > 0 && len(page.Sessions) > p.Limit {
		page.Sessions = page.Sessions[:p.Limit]
	}
	return page, nil
}

// updated is when the session last changed: UpdatedAt, or CreatedAt from
// a server that does not say.
func (r Row) updated() string {
	if r.UpdatedAt != "" {
		return r.UpdatedAt
	}
	return r.CreatedAt
}

// WriteTable prints the page as a table; now dates the AGE column. Every
// cell is escaped to one line, so no title or path can break the table or
// drive the terminal.
func WriteTable(w io.Writer, page Page, now time.Time) {
	if len(page.Sessions) == 0 {
		fmt.Fprintln(w, "no sessions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tTITLE\tAGE\tSTATE\tTURNS\tQUEUED\tCWD")
	for _, r := range page.Sessions {
		turns := ""
		if r.Turns != nil {
			turns = fmt.Sprint(*r.Turns)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n",
			termsafe.Line(r.SessionID), termsafe.Clip(termsafe.Line(r.Title), titleCellBytes), Age(r.updated(), now),
			termsafe.Line(r.State), turns, r.Queued, termsafe.Line(r.Cwd))
	}
	tw.Flush()
	if page.NextCursor != "" {
		fmt.Fprintf(w, "more: scv sessions --cursor %s\n", termsafe.Line(page.NextCursor))
	}
}

// stamp parses an RFC 3339 time; the zero time when it is not one.
func stamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Age says how long ago an RFC 3339 time was, in the largest whole unit
// (45s, 12m, 3h, 9d); "" when stamp is not a time.
func Age(stamp string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return ""
	}
	d := max(now.Sub(t), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
