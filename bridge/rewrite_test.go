package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"scv/runtime/config"
)

func TestWithFlagsRewritesOnlyInitialize(t *testing.T) {
	yes := true
	flags := config.Overrides{ApprovalPolicy: "always", NoTools: &yes}
	const want = `{"approvalPolicy":"always","noTools":true}`
	cases := []struct {
		name, body string
		isInit     bool
		keep       []string // JSON paths (dot-separated) that must survive
	}{
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, true, nil},
		{"no options", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":7}}`, true, []string{"processId"}},
		{"editor options kept", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"other":1,"scv":{"protocolVersion":1}}}}`, true,
			[]string{"initializationOptions.other", "initializationOptions.scv.protocolVersion"}},
		{"editor flags replaced", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"scv":{"flags":{"approvalPolicy":"auto"}}}}}`, true, nil},
		{"options not an object", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":"x"}}`, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, isInit := withFlags([]byte(tc.body), flags)
			if isInit != tc.isInit {
				t.Fatalf("isInit = %v", isInit)
			}
			var msg struct {
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal(out, &msg); err != nil {
				t.Fatalf("rewritten body %s: %v", out, err)
			}
			got, _ := json.Marshal(lookup(msg.Params, "initializationOptions.scv.flags"))
			if string(got) != want {
				t.Errorf("initializationOptions.scv.flags = %s, want %s (body %s)", got, want, out)
			}
			for _, path := range tc.keep {
				if lookup(msg.Params, path) == nil {
					t.Errorf("%s was lost: %s", path, out)
				}
			}
		})
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"scv/session/start","params":{"cwd":"/initialize"}}`,
		`{"jsonrpc":"2.0","method":"initialize"}`, // a notification is not the handshake
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"scv":"x"}}}`,
		`not json "initialize"`,
	} {
		if out, _ := withFlags([]byte(body), flags); string(out) != body {
			t.Errorf("withFlags changed %s into %s", body, out)
		}
	}
}

func lookup(m map[string]any, path string) any {
	var v any = m
	for _, key := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[key]
	}
	return v
}

func TestResponseID(t *testing.T) {
	cases := []struct {
		head string
		id   string // "" when there is none to find
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"big":"xxxx`, "7"},
		{`{"jsonrpc":"2.0","id":"a\"b","error":{`, `"a\"b"`},
		{`{"jsonrpc":"2.0","method":"scv/assistant/delta","params":{"content":"xx`, ""},
		{`{"jsonrpc":"2.0","result":{"cut off`, ""},
		{`[1,2`, ""},
	}
	for _, tc := range cases {
		id, ok := responseID([]byte(tc.head))
		if ok != (tc.id != "") || string(id) != tc.id {
			t.Errorf("responseID(%s) = %s, %v; want %q", tc.head, id, ok, tc.id)
		}
	}
}
