package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"scv/runtime/config"
	"scv/runtime/provider"
	"scv/runtime/tools"
)

// recorder is a Subscriber that keeps every event.
type recorder struct{ events []Event }

func (r *recorder) Deliver(ev Event) { r.events = append(r.events, ev) }

// bareSession is a session with no provider or tools, for the parts of
// the runtime that need neither.
func bareSession(t *testing.T) (*Session, *recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rec := &recorder{}
	s := &Session{
		id:              "s1",
		cfg:             config.Defaults(),
		limits:          Limits{MaxServerFrameBytes: 1 << 20},
		ctx:             ctx,
		cancel:          cancel,
		subs:            map[Subscriber]struct{}{rec: {}},
		subList:         []Subscriber{rec},
		sessionApproved: map[string]bool{},
	}
	return s, rec
}

func enqueue(t *testing.T, s *Session, prompts ...string) []QueueEntry {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []QueueEntry
	for _, p := range prompts {
		e, _, err := s.enqueueLocked(p, resolved{}, "1", nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func queueOrder(s *Session) string {
	var ids []string
	for _, e := range s.Queue().Entries {
		ids = append(ids, e.Prompt)
	}
	return strings.Join(ids, ",")
}

func TestMoveQueue(t *testing.T) {
	cases := []struct {
		name, move, before, want string
		position                 int
	}{
		{"to the end", "a", "", "b,c,a", 2},
		{"before a later entry", "a", "c", "b,a,c", 1},
		{"before an earlier entry", "c", "a", "c,a,b", 0},
		{"before its own successor", "a", "b", "a,b,c", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := bareSession(t)
			entries := enqueue(t, s, "a", "b", "c")
			id := map[string]string{"a": entries[0].QueueID, "b": entries[1].QueueID, "c": entries[2].QueueID}
			res, err := s.MoveQueue(id[tc.move], 1, id[tc.before])
			if err != nil {
				t.Fatal(err)
			}
			if got := queueOrder(s); got != tc.want || res.Position != tc.position || res.Revision != 2 {
				t.Fatalf("order %s position %d revision %d; want %s position %d revision 2", got, res.Position, res.Revision, tc.want, tc.position)
			}
		})
	}
}

func TestMoveQueueSelfIsANoOpAndConflictsChangeNothing(t *testing.T) {
	s, rec := bareSession(t)
	e := enqueue(t, s, "a", "b")
	before := len(rec.events)
	res, err := s.MoveQueue(e[1].QueueID, 1, e[1].QueueID)
	if err != nil || res.Revision != 1 || res.Position != 1 || len(rec.events) != before {
		t.Fatalf("self move = %+v, %v, events %d→%d", res, err, before, len(rec.events))
	}
	if _, err := s.MoveQueue(e[0].QueueID, 7, ""); CodeOf(err) != CodeQueueConflict {
		t.Fatalf("stale revision: %v", err)
	}
	if _, err := s.MoveQueue(e[0].QueueID, 1, "q999"); CodeOf(err) != CodeQueueNotFound {
		t.Fatalf("unknown beforeQueueId: %v", err)
	}
	if _, err := s.RemoveQueue("q999", 1); CodeOf(err) != CodeQueueNotFound {
		t.Fatalf("unknown queueId: %v", err)
	}
	if _, err := s.UpdateQueue(e[0].QueueID, 2, "x"); CodeOf(err) != CodeQueueConflict {
		t.Fatalf("stale update: %v", err)
	}
	if got := queueOrder(s); got != "a,b" {
		t.Fatalf("queue changed by refused edits: %s", got)
	}
}

func TestQueueLimits(t *testing.T) {
	s, _ := bareSession(t)
	for i := 0; i < MaxQueueItems; i++ {
		enqueue(t, s, fmt.Sprint(i))
	}
	s.mu.Lock()
	_, _, err := s.enqueueLocked("one more", resolved{}, "1", nil)
	s.mu.Unlock()
	if CodeOf(err) != CodeQueueLimit {
		t.Fatalf("entry %d: %v", MaxQueueItems+1, err)
	}

	s, _ = bareSession(t)
	big := strings.Repeat("x", MaxPromptBytes)
	for i := 0; i < MaxQueueBytes/MaxPromptBytes; i++ {
		enqueue(t, s, big)
	}
	s.mu.Lock()
	_, _, err = s.enqueueLocked("x", resolved{}, "1", nil)
	s.mu.Unlock()
	if CodeOf(err) != CodeQueueLimit {
		t.Fatalf("byte limit: %v", err)
	}
	if err := validatePrompt(big + "x"); CodeOf(err) != CodeInvalidPrompt {
		t.Fatalf("oversized prompt: %v", err)
	}
	if err := validatePrompt(" \n\t"); CodeOf(err) != CodeInvalidPrompt {
		t.Fatalf("blank prompt: %v", err)
	}
}

func TestGateFollowsThePolicyTable(t *testing.T) {
	want := map[string][2]gateOutcome{ // read-only, write
		PolicyNever:  {gateRun, gateDeny},
		PolicyOnRisk: {gateRun, gateAsk},
		PolicyAlways: {gateAsk, gateAsk},
		PolicyAuto:   {gateRun, gateRun},
	}
	for policy, w := range want {
		if got := gateFor(policy, tools.RiskReadOnly); got != w[0] {
			t.Errorf("%s read-only: %v, want %v", policy, got, w[0])
		}
		for _, risk := range []tools.Risk{tools.RiskWrite, tools.RiskExec, tools.RiskNetwork} {
			if got := gateFor(policy, risk); got != w[1] {
				t.Errorf("%s %s: %v, want %v", policy, risk, got, w[1])
			}
		}
	}
}

func TestCompactionNeverSeparatesACallFromItsResult(t *testing.T) {
	s, rec := bareSession(t)
	filler := strings.Repeat("w", 400) // 100 tokens
	s.history = []provider.Message{
		{Role: provider.RoleUser, Content: filler},
		{Role: provider.RoleAssistant, Content: filler, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{}"}, {ID: "c2", Name: "grep", Arguments: "{}"}}},
		{Role: provider.RoleTool, ToolCallID: "c1", Content: filler},
		{Role: provider.RoleTool, ToolCallID: "c2", Content: filler},
		{Role: provider.RoleUser, Content: filler},
	}
	s.cfg.Context.MaxTokens = 250
	if err := s.compact(&turn{id: "t1"}); err != nil {
		t.Fatal(err)
	}
	for i, m := range s.history {
		if m.Role == provider.RoleTool && (i == 0 || s.history[i-1].Role == provider.RoleUser) {
			t.Fatalf("a tool result lost its call: %+v", s.history)
		}
	}
	if len(s.history) != 1 || s.history[0].Role != provider.RoleUser {
		t.Fatalf("history after compaction = %d messages; want the newest prompt only", len(s.history))
	}
	last := rec.events[len(rec.events)-1]
	p, ok := last.Payload.(ContextCompacted)
	if !ok || p.RemovedMessages != 4 || p.AfterTokens >= p.BeforeTokens {
		t.Fatalf("compaction event %T %+v", last.Payload, last.Payload)
	}
}

func TestCompactionWithinBudgetDoesNothing(t *testing.T) {
	s, rec := bareSession(t)
	s.history = []provider.Message{{Role: provider.RoleUser, Content: "hi"}}
	if err := s.compact(&turn{id: "t1"}); err != nil || len(s.history) != 1 || len(rec.events) != 0 {
		t.Fatalf("compacted a small history: %v %d %d", err, len(s.history), len(rec.events))
	}
}

func TestAttachReplaysFromTheRingAndReportsAGap(t *testing.T) {
	s, _ := bareSession(t)
	s.mu.Lock()
	for i := 0; i < ReplayEvents+10; i++ {
		if err := s.emitLocked(SessionCleared{}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Unlock()
	late := &recorder{}
	after := uint64(ReplayEvents + 5)
	a, err := s.Attach(late, &after)
	if err != nil {
		t.Fatal(err)
	}
	replayed, gap := a.Replay, a.GapFrom
	if gap != 0 || len(replayed) != 5 || replayed[0].Seq != after+1 {
		t.Fatalf("recent afterSeq: gap %d, %d events from %d", gap, len(replayed), replayed[0].Seq)
	}
	zero := uint64(0)
	if a, err = s.Attach(late, &zero); err != nil {
		t.Fatal(err)
	}
	replayed, gap = a.Replay, a.GapFrom
	if gap != 11 || len(replayed) != ReplayEvents || replayed[0].Seq != 11 {
		t.Fatalf("old afterSeq: gap %d, %d events from %d", gap, len(replayed), replayed[0].Seq)
	}
	for i := 1; i < len(replayed); i++ {
		if replayed[i].Seq != replayed[i-1].Seq+1 {
			t.Fatalf("replay out of order at %d", i)
		}
	}
}

func TestEventsOverTheFrameLimitAreRefused(t *testing.T) {
	s, rec := bareSession(t)
	s.limits.MaxServerFrameBytes = 1024
	s.mu.Lock()
	err := s.emitLocked(AssistantDelta{"t1", strings.Repeat("x", 2048)})
	s.mu.Unlock()
	if _, ok := err.(*eventTooLarge); !ok || len(rec.events) != 0 || s.seq != 0 {
		t.Fatalf("oversized event: %v, %d delivered, seq %d", err, len(rec.events), s.seq)
	}
}

func TestRingDropsOldEventsPastItsByteBudget(t *testing.T) {
	var r ring
	big := ReplayBytes/8 + 1 // counted twice: values and one encoding
	for seq := uint64(1); seq <= 10; seq++ {
		r.push(Event{Seq: seq, size: big})
	}
	events, oldest := r.after(0)
	if len(events) != 3 || oldest != 8 || r.bytes > ReplayBytes {
		t.Fatalf("held %d events from %d, %d bytes", len(events), oldest, r.bytes)
	}
	r.push(Event{Seq: 11, size: ReplayBytes})
	if events, oldest = r.after(0); len(events) != 1 || oldest != 11 {
		t.Fatalf("an event over the whole budget: held %d from %d", len(events), oldest)
	}
}

func TestRingStaysBoundedOverManyPushes(t *testing.T) {
	var r ring
	for seq := uint64(1); seq <= 10*ReplayEvents+7; seq++ {
		r.push(Event{Seq: seq})
	}
	events, oldest := r.after(0)
	if len(events) != ReplayEvents || oldest != 9*ReplayEvents+8 || cap(r.events) > 4*ReplayEvents {
		t.Fatalf("held %d from %d, capacity %d", len(events), oldest, cap(r.events))
	}
}

func TestAnEventIsEncodedOncePerDialect(t *testing.T) {
	s, rec := bareSession(t)
	other := &recorder{}
	s.subscribeLocked(other)
	s.mu.Lock()
	if err := s.emitLocked(AssistantDelta{"t1", "x"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Unlock()
	type dialectA struct{}
	type dialectB struct{}
	calls := map[string]int{}
	enc := func(name string) func(Event) []byte {
		return func(Event) []byte { calls[name]++; return []byte(name) }
	}
	replay, _ := s.ring.after(0)
	for _, ev := range []Event{rec.events[0], other.events[0], replay[0]} {
		if string(ev.Encoded(dialectA{}, enc("a"))) != "a" || string(ev.Encoded(dialectB{}, enc("b"))) != "b" {
			t.Fatal("wrong bytes from the memo")
		}
	}
	if calls["a"] != 1 || calls["b"] != 1 {
		t.Fatalf("encodings per dialect: %v, want one each", calls)
	}
}
