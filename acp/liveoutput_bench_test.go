package acp

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	lspschema "scv/lsp/schema"
	"scv/runtime/session"
)

// benchOutputBytes is how much shell output one round pushes through.
const benchOutputBytes = 50 << 20

// outputEvents cuts benchOutputBytes of build-log-like output (tabs,
// quotes, colour escapes, accents) into ToolOutput events of chunk bytes.
func outputEvents(chunk int) []session.Event {
	lines := []string{
		"ok  \tscv/runtime/session\t0.412s\n",
		"--- FAIL: TestX (0.00s)\n    x_test.go:12: got \"a\", want \"b\"\n",
		"\x1b[32mPASS\x1b[0m café ✓ compiled 1234 files\n",
		"npm warn deprecated inflight@1.0.6: This module is not supported\n",
	}
	var all strings.Builder
	for i := 0; all.Len() < benchOutputBytes; i++ {
		all.WriteString(lines[i%len(lines)])
	}
	out := all.String()
	var evs []session.Event
	for at := 0; at < len(out); at += chunk {
		c := out[at:min(at+chunk, len(out))]
		evs = append(evs, session.Event{SessionID: "s1", Seq: uint64(len(evs) + 1), Payload: session.ToolOutput{TurnID: "t1", CallID: "call_1", Chunk: c}})
	}
	return evs
}

// scvFrame is the scv/* encoding of an event as the runtime and lsp make
// it: the payload's JSON (session.measurePayload's json.Marshal, which
// PayloadJSON repeats for an event made outside a session) framed with a
// Content-Length header (lsp/encode.go's encodeEvent).
func scvFrame(dst []byte, ev session.Event) []byte {
	members, _ := ev.PayloadJSON()
	dst = append(dst[:0], "Content-Length: 0000000000\r\n\r\n"...)
	dst = append(dst, `{"jsonrpc":"2.0","method":"`+lspschema.EvToolOutput+`","params":{"sessionId":"`...)
	dst = append(dst, ev.SessionID...)
	dst = append(dst, `","seq":`...)
	dst = strconv.AppendUint(dst, ev.Seq, 10)
	dst = append(dst, ',')
	dst = append(dst, members[1:len(members)-1]...)
	return append(dst, '}', '}')
}

// BenchmarkLiveOutput pushes 50 MB of shell output through the ACP
// mapping (escaping each chunk, keeping the tail, building and writing
// one tool_call_update per chunk) and through the scv/* encoding of the
// same events, in the same run; "ratio" is ACP's time over scv/*'s. One
// connection: the events carry no memo, so ACP escapes each chunk here
// (with more connections they share that escaping).
func BenchmarkLiveOutput(b *testing.B) {
	for _, chunk := range []int{4 << 10, 64 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("chunk=%dKiB", chunk>>10), func(b *testing.B) {
			evs := outputEvents(chunk)
			d := &Door{sessions: map[string]*sessState{"s1": {}}}
			d.out.w = io.Discard
			var frame []byte
			var tACP, tSCV time.Duration
			b.SetBytes(benchOutputBytes)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				for _, ev := range evs {
					d.process(item{ev: ev})
					d.flushLive()
				}
				tACP += time.Since(start)
				d.live.end(liveKey{"s1", "call_1"})

				start = time.Now()
				for _, ev := range evs {
					frame = scvFrame(frame, ev)
					_, _ = io.Discard.Write(frame)
				}
				tSCV += time.Since(start)
			}
			b.ReportMetric(float64(tACP.Nanoseconds())/float64(b.N)/1e6, "acp-ms/50MB")
			b.ReportMetric(float64(tSCV.Nanoseconds())/float64(b.N)/1e6, "scv-ms/50MB")
			b.ReportMetric(float64(tACP)/float64(tSCV), "ratio")
		})
	}
}
