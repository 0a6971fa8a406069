package outbudget

import (
	"context"
	"sync"
)

// WaitRoom blocks while blocked reports true (a queue's account is Full
// and the queue still runs), or until ctx ends. cond must use mu, and its
// owner must Broadcast whenever blocked may have turned false. The usual
// case, room already there, takes the lock once and registers nothing.
func WaitRoom(ctx context.Context, mu *sync.Mutex, cond *sync.Cond, blocked func() bool) {
	mu.Lock()
	if !blocked() || ctx.Err() != nil {
		mu.Unlock()
		return
	}
	mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer stop()
	mu.Lock()
	defer mu.Unlock()
	for blocked() && ctx.Err() == nil {
		cond.Wait()
	}
}
