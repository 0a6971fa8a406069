package bridge

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"scv/internal/termsafe"
)

// QueryStatus initializes c and asks for the daemon's status and sessions.
func QueryStatus(ctx context.Context, c *Client) (DaemonStatus, []SessionSummary, error) {
	if _, err := c.Initialize(ctx, "scv status"); err != nil {
		return DaemonStatus{}, nil, err
	}
	st, err := Status(ctx, c)
	if err != nil {
		return st, nil, err
	}
	sessions, err := Sessions(ctx, c)
	return st, sessions, err
}

// WriteStatus prints the daemon's status and its sessions as a table. Text
// fields are escaped one-line: a tab or newline in a cwd cannot break the
// table, nor an escape sequence drive the terminal.
func WriteStatus(w io.Writer, st DaemonStatus, sessions []SessionSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "scv daemon running\n")
	fmt.Fprintf(tw, "  pid\t%d\n", st.PID)
	fmt.Fprintf(tw, "  version\t%s\n", termsafe.Line(st.Version))
	fmt.Fprintf(tw, "  uptime\t%v\n", (time.Duration(st.UptimeMs) * time.Millisecond).Round(time.Second))
	fmt.Fprintf(tw, "  socket\t%s\n", termsafe.Line(st.Socket))
	fmt.Fprintf(tw, "  connections\t%d (this query is one of them)\n", st.Clients)
	fmt.Fprintf(tw, "  sessions\t%d\n", len(sessions))
	tw.Flush()
	if len(sessions) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATE\tQUEUED\tWINDOWS\tMODEL\tCWD")
	for _, s := range sessions {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", termsafe.Line(s.SessionID), termsafe.Line(s.State), s.Queued, s.Clients, termsafe.Line(s.Model), termsafe.Line(s.Cwd))
	}
	tw.Flush()
}
