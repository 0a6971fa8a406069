package acp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"scv/acp/schema"
	"scv/runtime/session"
)

// liveText decodes a live update and checks it is the frame the schema
// types would give, returning the text it shows.
func liveText(t *testing.T, frame []byte) string {
	t.Helper()
	var got, want any
	if err := json.Unmarshal(frame, &got); err != nil {
		t.Fatalf("the live update is not JSON: %v\n%.300s", err, frame)
	}
	var n struct {
		Params struct {
			Update struct {
				Content []struct {
					Content struct{ Text string }
				}
			}
		}
	}
	_ = json.Unmarshal(frame, &n)
	text := n.Params.Update.Content[0].Content.Text
	block := schema.Text(text)
	ref := notification(schema.MethodSessionUpdate, schema.Notification{SessionID: "s1", Update: schema.ToolCallUpdate{
		SessionUpdate: schema.UpdateToolCallUpdate, ToolCallID: "call_1", Status: schema.StatusInProgress,
		Content: []schema.ToolCallContent{{Type: "content", Content: &block}},
	}})
	_ = json.Unmarshal(ref, &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("live update\n%.400s\nis not the schema's\n%.400s", frame, ref)
	}
	return text
}

// wantTail is what a live update shows after out was printed: all of it,
// or its end from the first character at most MaxLiveOutputBytes from the
// end, under a line counting the rest.
func wantTail(out string) string {
	if len(out) <= MaxLiveOutputBytes {
		return out
	}
	k := len(out) - MaxLiveOutputBytes
	for !utf8.RuneStart(out[k]) {
		k++
	}
	return fmt.Sprintf("[… %d earlier bytes not shown]\n", k) + out[k:]
}

func showAll(t *testing.T, chunks []string) (shown string, tail *outputTail) {
	t.Helper()
	var l liveTails
	k := liveKey{"s1", "call_1"}
	for i, c := range chunks {
		ev := session.Event{SessionID: "s1", Seq: uint64(i + 1), Payload: session.ToolOutput{CallID: "call_1", Chunk: c}}
		tail = l.add(k, escapedChunk(ev, c), len(c))
	}
	return liveText(t, appendLiveOutput(nil, "s1", "call_1", tail)), tail
}

// Output under the bound shows whole, with no note.
func TestLiveOutputUnderTheBoundShowsWhole(t *testing.T) {
	chunks := []string{"first\n", "tab\there \"quoted\" back\\slash\n", "\x1b[31mred\x1b[0m é ✓ 😀 \u2028\n"}
	got, _ := showAll(t, chunks)
	if want := strings.Join(chunks, ""); got != want {
		t.Fatalf("shown %q, want %q", got, want)
	}
}

// Past MaxLiveOutputBytes only the tail shows, cut at a character and
// never inside an escape, under a line counting the bytes left out; the
// tail's memory stays bounded however much is printed.
func TestLiveOutputShowsABoundedTail(t *testing.T) {
	pieces := []string{"a", "\n", "\"", "\\", "\x01", "\t", "é", "✓", "😀", "\u2028", "line of text "}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		var chunks []string
		var all strings.Builder
		for all.Len() < 3*MaxLiveOutputBytes {
			var c strings.Builder
			size := 1 + rng.IntN(4<<10)
			if round%8 == 0 {
				size = 300 << 10 // a chunk larger than the bound on its own
			}
			for c.Len() < size {
				c.WriteString(pieces[rng.IntN(len(pieces))])
			}
			chunks = append(chunks, c.String())
			all.WriteString(c.String())
		}
		got, tail := showAll(t, chunks)
		if want := wantTail(all.String()); got != want {
			t.Fatalf("round %d: shown %d bytes starting %.60q, want %d starting %.60q", round, len(got), got, len(want), want)
		}
		if tail.raw > MaxLiveOutputBytes || cap(tail.esc) > maxTailCap {
			t.Fatalf("round %d: the tail holds %d bytes of output in %d bytes of array", round, tail.raw, cap(tail.esc))
		}
	}
}

// A connection keeps at most MaxLiveCalls tails, forgetting the one that
// grew longest ago, and drops a call's tail when it completes and a
// session's when its turn ends.
func TestLiveTailsAreBoundedAndDropped(t *testing.T) {
	d := &Door{}
	for i := range MaxLiveCalls + 5 {
		d.live.add(liveKey{"s1", fmt.Sprint("call_", i)}, []byte("x"), 1)
		d.live.add(liveKey{"s1", "call_0"}, []byte("x"), 1) // kept busy
	}
	if n := len(d.live.calls); n != MaxLiveCalls {
		t.Fatalf("%d tails kept, want %d", n, MaxLiveCalls)
	}
	if d.live.calls[liveKey{"s1", "call_0"}] == nil || d.live.calls[liveKey{"s1", "call_1"}] != nil {
		t.Fatal("the busy call was forgotten, or an idle one kept")
	}
	d.live.add(liveKey{"s2", "call_9"}, []byte("x"), 1)
	d.endLive(session.Event{SessionID: "s1", Payload: session.ToolCompleted{CallID: "call_0"}})
	if d.live.calls[liveKey{"s1", "call_0"}] != nil {
		t.Fatal("a completed call's tail is kept")
	}
	d.endLive(session.Event{SessionID: "s1", Payload: session.TurnCompleted{}})
	if len(d.live.calls) != 1 || d.live.calls[liveKey{"s2", "call_9"}] == nil {
		t.Fatalf("after s1's turn ended the tails are %v, want s2's only", d.live.calls)
	}
}

// Chunks the pump meets together cost one update, and nothing new sends
// nothing; once the call completed no live update follows.
func TestLiveOutputCoalescesAndStopsAtCompletion(t *testing.T) {
	var buf strings.Builder
	d := &Door{sessions: map[string]*sessState{"s1": {}}}
	d.out.w = &buf
	chunk := func(seq uint64, c string) item {
		return item{ev: session.Event{SessionID: "s1", Seq: seq, Payload: session.ToolOutput{CallID: "call_1", Chunk: c}}}
	}
	lines := func() []string { return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") }
	d.process(chunk(1, "one\n"))
	d.process(chunk(2, "two\n"))
	d.flushLive()
	d.flushLive()
	if l := lines(); len(l) != 1 || liveText(t, []byte(l[0])) != "one\ntwo\n" {
		t.Fatalf("after two chunks and two flushes the client got %q", l)
	}
	d.process(chunk(3, "three\n"))
	d.process(item{ev: session.Event{SessionID: "s1", Seq: 4, Payload: session.ToolCompleted{CallID: "call_1", Name: "shell", Success: true, Output: "one\ntwo\nthree\n"}}})
	d.flushLive()
	if l := lines(); len(l) != 2 || !strings.Contains(l[1], `"status":"completed"`) {
		t.Fatalf("a live update was sent for a call that had completed: %q", l)
	}
}
