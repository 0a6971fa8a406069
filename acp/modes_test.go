package acp_test

import (
	"strings"
	"testing"
)

// `scv acp --approval=always` is the ceiling of the sessions it starts: the
// modes session/new offers are the ones it allows, and session/set_mode or
// the mode option cannot lift it, in process or through the daemon; nor can
// a session/load by an scv acp started without the flag.
func TestTheApprovalFlagBoundsTheModesOffered(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		env := newEnvFor(t, backend)
		a, _ := startAgentFor(t, env, backend, "--approval=always")
		a.initialize()
		a.request(1, "session/new", map[string]any{"cwd": env.Work, "mcpServers": []any{}})
		var r sessionSetup
		a.result(1, &r)
		if got := r.modeIDs(); got != "always" || r.Modes.CurrentModeID != "always" {
			t.Errorf("session/new under --approval=always offers modes %s (current %q), want only always", got, r.Modes.CurrentModeID)
		}
		if got := r.modeOption(); got != "always" {
			t.Errorf("the mode option offers %s, want only always", got)
		}
		sid := r.SessionID
		a.request(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
		if code, _ := a.errorCode(2); code != -32602 {
			t.Errorf("set_mode auto under --approval=always: code %d, want -32602", code)
		}
		a.request(3, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "on-risk"})
		if code, _ := a.errorCode(3); code != -32602 {
			t.Errorf("set_config_option mode on-risk under --approval=always: code %d, want -32602", code)
		}
		a.request(4, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "always"})
		a.result(4, nil)

		// Closed, then loaded by an scv acp without the flag.
		a.request(5, "session/close", map[string]any{"sessionId": sid})
		a.result(5, nil)
		b, _ := startAgentFor(t, env, backend)
		b.initialize()
		b.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
		var loaded sessionSetup
		b.result(1, &loaded)
		if got := loaded.modeIDs(); got != "always" {
			t.Errorf("session/load without the flag offers modes %s, want only always", got)
		}
		b.request(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
		if code, _ := b.errorCode(2); code != -32602 {
			t.Errorf("set_mode auto after a load without the flag: code %d, want -32602", code)
		}
	})
}

// sessionSetup is the part of session/new's and session/load's answers
// the mode tests read.
type sessionSetup struct {
	SessionID string `json:"sessionId"`
	Modes     struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	} `json:"modes"`
	ConfigOptions []struct {
		ID      string `json:"id"`
		Options []struct {
			Value string `json:"value"`
		} `json:"options"`
	} `json:"configOptions"`
}

func (s sessionSetup) modeIDs() string {
	var ids []string
	for _, m := range s.Modes.AvailableModes {
		ids = append(ids, m.ID)
	}
	return strings.Join(ids, ",")
}

func (s sessionSetup) modeOption() string {
	var ids []string
	for _, o := range s.ConfigOptions {
		if o.ID == "mode" {
			for _, v := range o.Options {
				ids = append(ids, v.Value)
			}
		}
	}
	return strings.Join(ids, ",")
}

// A stored session loaded by `scv acp --approval=always` offers only
// always, whether that scv acp serves it or loads it through a daemon
// started without the flag.
func TestASessionLoadedUnderTheApprovalFlagOffersOnlyItsModes(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		env := newEnvFor(t, backend)
		a, _ := startAgentFor(t, env, backend)
		a.initialize()
		a.request(1, "session/new", map[string]any{"cwd": env.Work, "mcpServers": []any{}})
		var r sessionSetup
		a.result(1, &r)
		sid := r.SessionID
		a.request(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
		a.result(2, nil)
		a.request(3, "session/close", map[string]any{"sessionId": sid})
		a.result(3, nil)

		b, _ := startAgentFor(t, env, backend, "--approval=always")
		b.initialize()
		b.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": env.Work, "mcpServers": []any{}})
		var loaded sessionSetup
		b.result(1, &loaded)
		if got := loaded.modeIDs(); got != "always" || loaded.Modes.CurrentModeID != "always" {
			t.Errorf("a stored auto session loaded under --approval=always offers modes %s (current %q), want only always", got, loaded.Modes.CurrentModeID)
		}
		b.request(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
		if code, _ := b.errorCode(2); code != -32602 {
			t.Errorf("set_mode auto on a session loaded under --approval=always: code %d, want -32602", code)
		}
	})
}
