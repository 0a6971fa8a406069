package provider

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestReplayDelayValidation(t *testing.T) {
	for _, line := range []string{
		`{"text":"x","delay_ms":-1}`,
		`{"text":"x","delay_ms":10001}`,
		`{"usage":{"input_tokens":1,"output_tokens":1},"delay_ms":5}`,
	} {
		if _, err := NewReplay([]byte(line)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: err = %v, want an error naming line 1", line, err)
		}
	}
}

// A cancel during a delay ends the stream at once, not after the delay.
func TestReplayDelayHonoursCancel(t *testing.T) {
	r, err := NewReplay([]byte(`{"text":"a"}` + "\n" + `{"text":"b","delay_ms":10000}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Stream(ctx, Request{}, func(string) error {
			cancel() // after the first delta: the stream is now in the delay
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream waited out its delay after a cancel")
	}
}

func TestDemoScriptIsPacedButValid(t *testing.T) {
	if _, err := NewReplay(DemoScript()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(DemoScript()), `"delay_ms"`) {
		t.Fatal("the demo script streams without pacing; a terminal would show it all at once")
	}
}
