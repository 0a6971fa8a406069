package memrelease

import (
	"context"
	"testing"
)

// Requests made while a release runs fold into one more release, and
// Request never waits for the releaser.
func TestRequestsFoldIntoOneMoreRelease(t *testing.T) {
	running, proceed := make(chan struct{}), make(chan struct{})
	released := 0
	r := New(func() {
		released++
		running <- struct{}{}
		<-proceed
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()

	r.Request()
	<-running // the first release runs and waits
	for range 30 {
		r.Request() // thirty sessions close meanwhile: none of these blocks
	}
	proceed <- struct{}{}
	<-running // exactly one more release for the thirty
	proceed <- struct{}{}
	cancel()
	<-done
	if released != 2 {
		t.Fatalf("%d releases, want 2", released)
	}
	select {
	case <-r.asked:
		t.Fatal("a request is still pending after the releases that covered it")
	default:
	}
}
