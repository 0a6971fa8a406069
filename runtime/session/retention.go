package session

import (
	"context"
	"time"
)

// RetentionInterval is how often a daemon applies the retention of stored
// sessions (sessions.max_count, sessions.max_age_days) after the first
// time, at its start.
const RetentionInterval = 24 * time.Hour

// RunRetention prunes the store now and then every interval until ctx
// ends. The caller owns the goroutine it runs on.
func (m *Manager) RunRetention(ctx context.Context, maxCount int, maxAge, interval time.Duration) {
	prune := func() {
		removed, err := m.Prune(maxCount, maxAge)
		if len(removed) > 0 {
			m.opts.Log.Info("stored sessions removed by retention", "count", len(removed), "max_count", maxCount, "max_age", maxAge)
		}
		if err != nil {
			m.opts.Log.Warn("retention of stored sessions", "err", err)
		}
	}
	prune()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			prune()
		}
	}
}
