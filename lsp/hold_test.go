package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"scv/lsp/wire"
	"scv/runtime/session"
)

// TestEventsWaitForEveryRunningHandlersReply: with two handlers of one
// connection running at once, an event either causes goes out only after
// both replies, and events keep their order.
func TestEventsWaitForEveryRunningHandlersReply(t *testing.T) {
	srv := NewServer(Options{})
	c := newConn(context.Background(), srv, nil)
	delta := func(seq uint64) session.Event {
		return session.Event{SessionID: "s", Seq: seq, Payload: session.AssistantDelta{TurnID: "t", Content: "x"}}
	}
	c.holdEvents() // handler A
	c.holdEvents() // handler B
	c.Deliver(delta(1))
	c.reply(jsonrpc2.NewNumberID(1), "a", nil)
	c.releaseEvents() // A done: B still runs, so the event waits
	c.Deliver(delta(2))
	c.reply(jsonrpc2.NewNumberID(2), "b", nil)
	c.releaseEvents()
	c.Deliver(delta(3)) // nothing runs: straight out
	c.out.Close()
	var buf bytes.Buffer
	if err := c.out.Run(&buf); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(&buf, 1<<20)
	var got []string
	for {
		body, err := r.ReadFrame()
		if err != nil {
			break
		}
		var m struct {
			ID     *int `json:"id"`
			Params struct {
				Seq int `json:"seq"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		if m.ID != nil {
			got = append(got, "reply", string(rune('0'+*m.ID)))
		} else {
			got = append(got, "event", string(rune('0'+m.Params.Seq)))
		}
	}
	want := []string{"reply", "1", "reply", "2", "event", "1", "event", "2", "event", "3"}
	if len(got) != len(want) {
		t.Fatalf("frames %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frames %v, want %v", got, want)
		}
	}
}
