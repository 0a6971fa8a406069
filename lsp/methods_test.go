package lsp_test

import (
	"reflect"
	"sort"
	"testing"

	"scv/lsp/client"
	"scv/lsp/lsptest"
)

// specMethods and specNotifications are the tables of the protocol page.
var (
	specMethods = []string{
		"scv/session/start", "scv/session/attach", "scv/session/detach", "scv/session/list",
		"scv/session/close", "scv/session/clear", "scv/session/pause", "scv/session/rename",
		"scv/session/delete", "scv/session/fork", "scv/turn/start",
		"scv/turn/cancel", "scv/queue/list", "scv/queue/update", "scv/queue/move",
		"scv/queue/remove", "scv/approval/resolve", "scv/daemon/status", "scv/mcp/list",
		"scv/turn/steer", "scv/session/configure", "scv/model/list", "scv/skill/list",
		"scv/turn/changes", "scv/turn/revert",
	}
	specNotifications = []string{
		"scv/turn/started", "scv/assistant/delta", "scv/assistant/completed", "scv/tool/proposed",
		"scv/tool/started", "scv/tool/completed", "scv/approval/requested", "scv/approval/resolved",
		"scv/context/compacted", "scv/turn/completed", "scv/turn/cancelled", "scv/turn/failed",
		"scv/queue/snapshot", "scv/queue/enqueued", "scv/queue/updated", "scv/queue/moved",
		"scv/queue/removed", "scv/queue/dequeued", "scv/session/paused", "scv/session/cleared",
		"scv/session/closed", "scv/session/renamed", "scv/session/restored", "scv/mcp/status", "scv/session/lagged", "scv/session/gap",
		"scv/turn/steered", "scv/session/configured",
		"scv/assistant/reasoning", "scv/tool/output", "scv/plan/updated", "scv/session/usage",
		"scv/turn/changes", "scv/turn/reverted",
	}
)

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestAdvertisedMethodsAreExactlyThoseDispatched(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		ed := env.Connect()
		res := ed.Initialize()
		caps := res.Capabilities.Experimental.SCV
		if res.ServerInfo.Name != "scv" || res.ServerInfo.Version == "" || caps.ProtocolVersion != 1 || caps.Daemon != env.ServedByDaemon() {
			t.Errorf("initialize = %+v", res)
		}
		if !reflect.DeepEqual(sorted(caps.Methods), sorted(specMethods)) {
			t.Errorf("advertised methods\n%v\nwant the protocol's\n%v", sorted(caps.Methods), sorted(specMethods))
		}
		if !reflect.DeepEqual(sorted(caps.Notifications), sorted(specNotifications)) {
			t.Errorf("advertised notifications\n%v\nwant the protocol's\n%v", sorted(caps.Notifications), sorted(specNotifications))
		}
		if !reflect.DeepEqual(caps.ApprovalPolicies, []string{"never", "on-risk", "always", "auto"}) {
			t.Errorf("approvalPolicies = %v", caps.ApprovalPolicies)
		}
		if !reflect.DeepEqual(caps.ApprovalRuleKinds, []string{"shell", "edit"}) || caps.ModelList.TimeoutMs != 2000 || caps.ModelList.CacheSeconds != 600 {
			t.Errorf("approvalRuleKinds = %v, modelList = %+v", caps.ApprovalRuleKinds, caps.ModelList)
		}
		l := caps.Limits
		if l.MaxPromptBytes != 262144 || l.MaxQueueItems != 64 || l.MaxQueueBytes != 4194304 || l.MaxClientFrameBytes != 8388608 ||
			l.MaxServerFrameBytes != 8388608 || l.ReplayEvents != 1024 || l.MaxInflightRequests != 32 {
			t.Errorf("limits = %+v, want the protocol's defaults", l)
		}

		// Every advertised method is dispatched: whatever it answers to
		// empty params, it is not "method not found".
		for _, m := range caps.Methods {
			err := ed.Call(m, map[string]any{}, nil)
			if e, ok := clientError(err); ok && e == codeMethodNotFound {
				t.Errorf("advertised %s answers -32601", m)
			} else if err != nil && !ok {
				t.Errorf("%s: %v", m, err)
			}
		}
		// Names that are not advertised are not dispatched.
		for _, m := range []string{"scv/session/remove", "scv/turn/start2", "scv/queue", "scv/",
			"scv/session/lagged", "scv/turn/started", "initialized", "exit", "$/cancelRequest", "workspace/symbol"} {
			err := ed.Call(m, map[string]any{}, nil)
			if e, _ := clientError(err); e != codeMethodNotFound {
				t.Errorf("unadvertised request %s answered %v, want -32601", m, err)
			}
		}
	})
}

// clientError returns the code of a server error.
func clientError(err error) (int64, bool) {
	e, ok := client.AsError(err)
	if !ok {
		return 0, false
	}
	return e.Code, true
}
