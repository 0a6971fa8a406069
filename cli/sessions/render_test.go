package sessions

import (
	"strings"
	"testing"

	"scv/runtime/provider"
	"scv/runtime/session"
)

func ev(payloads ...any) []Event {
	out := make([]Event, len(payloads))
	for i, p := range payloads {
		out[i] = Event{SessionID: "s1", Seq: uint64(i + 1), Payload: p}
	}
	return out
}

func TestRender(t *testing.T) {
	approval := session.ApprovalRequested{Approval: session.Approval{TurnID: "t1", ApprovalID: "a1", Name: "shell", Risk: "exec", Summary: "$ rm -rf build"}}
	tests := []struct {
		name    string
		in      Transcript
		want    []string // in this order
		notWant []string
		check   func(t *testing.T, md string)
	}{{
		name: "a turn with a tool call",
		in: Transcript{SessionID: "s1", Cwd: "/w", Model: "m", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "Fix the build\nplease", Context: []session.ContextRef{{URI: "file:///w/a.go", Range: &session.Range{Start: session.Position{Line: 2}, End: session.Position{Line: 4}}}}},
			Assistant{AssistantCompleted: session.AssistantCompleted{TurnID: "t1", Content: "Running **make**."}},
			session.ToolProposed{TurnID: "t1", CallID: "c1", Name: "shell", Arguments: `{"command":"make"}`},
			approval,
			session.ApprovalResolved{TurnID: "t1", ApprovalID: "a1", Decision: "approve"},
			session.ToolCompleted{TurnID: "t1", CallID: "c1", Name: "shell", Success: false, Output: "error: x", Truncated: true},
			session.ContextCompacted{TurnID: "t1", BeforeTokens: 900, AfterTokens: 300, RemovedMessages: 4},
			Assistant{AssistantCompleted: session.AssistantCompleted{TurnID: "t1", Content: "Fixed."}},
			session.TurnCompleted{TurnID: "t1", Steps: 2, Usage: provider.Usage{InputTokens: 10, OutputTokens: 3}},
		)},
		want: []string{
			"# Fix the build\n", "- Session: `s1`", "- Directory: `/w`", "- Model: `m`",
			"## Prompt\n\nFix the build\nplease\n", "Context: `file:///w/a.go` lines 3–5",
			"Running **make**.",
			"### Tool call `shell`\n\n```json\n{\n  \"command\": \"make\"\n}\n```\n",
			"Approval asked for `shell` (risk: exec):\n\n```text\n$ rm -rf build\n```",
			"Approval `a1`: **approve**",
			"Result (failed) (output truncated):\n\n```text\nerror: x\n```",
			"Context compacted from 900 to 300 tokens (4 messages dropped)",
			"Fixed.", "Turn completed in 2 step(s); tokens: 10 in, 3 out",
		},
	}, {
		name: "changed files and a revert",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "edit"},
			session.TurnChanges{TurnID: "t1", Files: []session.FileStat{{Path: "a.go", Added: 2, Removed: 1}, {Path: "logo.png", Binary: true}}},
			session.TurnCompleted{TurnID: "t1", Steps: 1},
			session.TurnReverted{TurnID: "t1", TurnIDs: []string{"t1"}},
		)},
		want: []string{"_Turn `t1` changed 2 file(s):_", "- `a.go` +2 −1", "- `logo.png` binary", "_Reverted 1 turn(s) from turn `t1` on"},
	}, {
		name: "a turn whose tools changed nothing, with the too-large notice",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "build"},
			session.TurnCompleted{TurnID: "t1", Steps: 1, ChangesPending: true},
			session.TurnChanges{TurnID: "t1", Files: []session.FileStat{}, Notice: "the workspace is too large"},
		)},
		want:    []string{"_Turn completed in 1 step(s)", "_Note: the workspace is too large._"},
		notWant: []string{"changed 0 file"},
	}, {
		name: "an approval that names a rule held for confirmation",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "go"},
			session.ApprovalRequested{Approval: session.Approval{TurnID: "t1", ApprovalID: "a1", Name: "shell", Risk: "exec", Summary: "$ touch x",
				SuggestedRule: "shell:touch *", ConfirmsRule: true, Notice: `the rule "shell:touch *" in /u/config.toml would allow this call`}},
			session.ApprovalResolved{TurnID: "t1", ApprovalID: "a1", Decision: "deny"},
		)},
		want: []string{"Approval asked for `shell`", `_Note: the rule "shell:touch *" in /u/config.toml would allow this call._`, "Approval `a1`: **deny**"},
	}, {
		name: "each turn end with the notice that the session's file is nearly full",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "one"},
			session.TurnCompleted{TurnID: "t1", Steps: 1, Notice: "the file is nearly full"},
			session.TurnStarted{TurnID: "t2", Prompt: "two"},
			session.TurnCancelled{TurnID: "t2", Notice: "cancelled near full"},
			session.TurnStarted{TurnID: "t3", Prompt: "three"},
			session.TurnFailed{TurnID: "t3", Code: "timeout", Message: "slow", Notice: "failed near full"},
		)},
		want: []string{"_Turn completed in 1 step(s)", "_Note: the file is nearly full._", "_Turn cancelled._", "_Note: cancelled near full._",
			"**Turn failed** (`timeout`): slow", "_Note: failed near full._"},
	}, {
		name: "cancelled, failed, cleared, interrupted, restored",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{TurnID: "t1", Prompt: "one"},
			Assistant{AssistantCompleted: session.AssistantCompleted{TurnID: "t1", Content: "half"}, Interrupted: true},
			session.TurnCancelled{TurnID: "t1"},
			session.SessionCleared{},
			session.TurnStarted{TurnID: "t2", Prompt: "two"},
			session.TurnFailed{TurnID: "t2", Code: "interrupted", Message: "scv stopped"},
			Restored{InterruptedTurnID: "t2", CancelledApprovals: []string{"a9"}, Queued: 2, Paused: true},
		)},
		want: []string{"# one\n", "- Model: (none)", "half", "cut off", "_Turn cancelled._", "session was cleared", "## Prompt\n\ntwo",
			"**Turn failed** (`interrupted`): scv stopped",
			"turn `t2` was interrupted; 1 pending approval(s) were cancelled; 2 queued prompt(s) kept, paused"},
	}, {
		name: "the title is the last rename, else the id",
		in:   Transcript{SessionID: "s1", Events: ev(session.TurnStarted{Prompt: "first"}, Renamed{Title: "A"}, Renamed{Title: "B"})},
		want: []string{"# B\n"},
	}, {
		name: "no events",
		in:   Transcript{SessionID: "s1", GapFrom: 40},
		want: []string{"# Session s1\n", "Events before 40 are no longer held"},
	}, {
		name: "backticks cannot close a fence or inline code",
		in: Transcript{SessionID: "s1", Events: ev(
			session.ToolProposed{Name: "a`b", Arguments: "not json ``` still"},
			session.ToolCompleted{Name: "a`b", Success: true, Output: "x\n````\n# Not a heading\n````"},
		)},
		want: []string{"### Tool call ``a`b``", "````json\nnot json ``` still\n````", "`````text\nx\n````\n# Not a heading\n````\n`````"},
	}, {
		name: "an answer that leaves a fence open is closed",
		in: Transcript{SessionID: "s1", Events: ev(
			session.TurnStarted{Prompt: "p"},
			Assistant{AssistantCompleted: session.AssistantCompleted{Content: "look:\n~~~~go\nfunc f() {}\n```\n"}},
			session.TurnCompleted{Steps: 1},
		)},
		want: []string{"~~~~go\nfunc f() {}\n```\n~~~~\n", "_Turn completed"},
	}, {
		name: "control characters are shown escaped",
		in: Transcript{SessionID: "s\x1b[2J", Cwd: "/w\nx", Events: ev(
			session.TurnStarted{Prompt: "hi\x1b]0;pwned\x07"},
			Assistant{AssistantCompleted: session.AssistantCompleted{Content: "ok\r\x1b[2K done \u202e"}},
			session.ToolCompleted{Name: "shell\r", Success: true, Output: "\x9b31m red \x1b[0m\r\n"},
		)},
		want:    []string{`- Session: ` + "`" + `s\x1b[2J` + "`", `- Directory: ` + "`" + `/w\nx` + "`", `hi\x1b]0;pwned\x07`, `ok\r\x1b[2K done \u202e`, `\x9b31m red \x1b[0m`},
		notWant: []string{"\x1b", "\r", "\x07", "\u202e", "\x9b"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := Render(tc.in)
			rest := md
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the export lacks %q (or has it out of order):\n%s", w, md)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(md, w) {
					t.Errorf("the export holds %q:\n%q", w, md)
				}
			}
		})
	}
}

func TestCodeAndFence(t *testing.T) {
	for in, want := range map[string]string{"": "(none)", "x": "`x`", "a`b": "``a`b``", "`x": "`` `x ``", "a\tb": "`a\\tb`"} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"": "```t\n```\n", "a": "```t\na\n```\n", "``````": "```````t\n``````\n```````\n"} {
		if got := fence(in, "t"); got != want {
			t.Errorf("fence(%q) = %q, want %q", in, got, want)
		}
	}
}
