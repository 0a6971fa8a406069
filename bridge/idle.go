package bridge

import (
	"context"
	"log/slog"
	"time"
)

// Bounds of the period at which the daemon closes idle sessions.
const (
	minSessionReap = time.Second
	maxSessionReap = time.Minute
)

// ReapIdleSessions closes sessions that have had no window and no turn for
// maxIdle (daemon.session_idle_minutes), until ctx ends.
func ReapIdleSessions(ctx context.Context, closeIdle func(maxIdle time.Duration) []string, maxIdle time.Duration, log *slog.Logger) {
	if maxIdle <= 0 {
		return
	}
	t := time.NewTicker(min(max(maxIdle/10, minSessionReap), maxSessionReap))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ids := closeIdle(maxIdle); len(ids) > 0 {
				log.Info("closed idle sessions", "sessions", ids, "idleFor", maxIdle)
			}
		}
	}
}
