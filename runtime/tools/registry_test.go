package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestBuiltinRegistry(t *testing.T) {
	ws := newTestWorkspace(t)
	reg := NewRegistry(Builtin(ws, Limits{}, ShellEnv{})...)
	var names []string
	for _, tool := range reg.All() {
		names = append(names, tool.Name())
	}
	want := "read_file list_dir grep glob write_file edit_file shell"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("All() = %s, want %s", got, want)
	}
	risks := map[string]Risk{
		"read_file": RiskReadOnly, "list_dir": RiskReadOnly, "grep": RiskReadOnly, "glob": RiskReadOnly,
		"write_file": RiskWrite, "edit_file": RiskWrite, "shell": RiskExec,
	}
	for name, risk := range risks {
		tool, ok := reg.Get(name)
		if !ok || tool.Risk() != risk {
			t.Errorf("Get(%s) = %v, %v; want risk %s", name, tool, ok, risk)
		}
	}
	if _, ok := reg.Get("nope"); ok {
		t.Error("Get of an unknown name succeeded")
	}
	all := reg.All()
	all[0] = nil
	if reg.All()[0] == nil {
		t.Error("All() exposes the registry's slice")
	}

	// A later tool with a taken name replaces the earlier one in place.
	builtin := Builtin(ws, Limits{}, ShellEnv{})
	override := newReadFile(ws, DefaultLimits())
	reg = NewRegistry(append(builtin, override)...)
	if got, _ := reg.Get("read_file"); got != Tool(override) {
		t.Error("override not registered")
	}
	if len(reg.All()) != len(builtin) || reg.All()[0] != Tool(override) {
		t.Error("override did not keep the original position")
	}
}

func TestSchemas(t *testing.T) {
	for _, tool := range Builtin(newTestWorkspace(t), Limits{}, ShellEnv{}) {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tool.Parameters(), &schema); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", tool.Name(), err)
		}
		if schema.Type != "object" || schema.Required == nil {
			t.Errorf("%s: schema %s", tool.Name(), tool.Parameters())
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name(), r)
			}
		}
		if tool.Description() == "" {
			t.Errorf("%s: no description", tool.Name())
		}
	}
}

// TestBadArguments: every tool reports malformed arguments as a failed
// Result naming the tool and the problem, from Run and from Summary.
func TestBadArguments(t *testing.T) {
	ws := newTestWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"f.txt": "hello\n"})
	tests := []struct {
		tool, args, want string
		shape            bool // an argument-shape error, which Summary reports too
	}{
		{"read_file", `{"path":`, "not a JSON object", true},
		{"read_file", `[1,2]`, "not a JSON object", true},
		{"read_file", `{}`, `missing required argument "path"`, true},
		{"read_file", `{"path":null}`, `missing required argument "path"`, true},
		{"read_file", `{"path":3}`, `argument "path" must be a string`, true},
		{"read_file", `{"path":"f.txt","offset":"2"}`, `argument "offset" must be an integer`, true},
		{"read_file", `{"path":"f.txt","offset":1.5}`, `argument "offset" must be an integer`, true},
		{"read_file", `{"path":"f.txt","offset":-1}`, "offset must be 1 or more", false},
		{"read_file", `{"path":"f.txt","limit":-1}`, "limit must not be negative", false},
		{"read_file", `{"path":"f.txt","lines":3}`, `unknown argument "lines"`, true},
		{"list_dir", `{"path":true}`, `argument "path" must be a string`, true},
		{"grep", `{}`, `missing required argument "pattern"`, true},
		{"grep", `{"pattern":"("}`, "invalid pattern", false},
		{"grep", `{"pattern":"x","glob":"["}`, "malformed", false},
		{"glob", `{"pattern":""}`, "empty pattern", false},
		{"glob", `{"pattern":"../*"}`, `must not contain ".."`, false},
		{"glob", `{"pattern":"/etc/*"}`, "must be relative", false},
		{"glob", `{"pattern":"a/[/b"}`, "malformed segment", false},
		{"write_file", `{"path":"x"}`, `missing required argument "content"`, true},
		{"write_file", `{"path":"x","content":5}`, `argument "content" must be a string`, true},
		{"edit_file", `{"path":"f.txt","old":"a"}`, `missing required argument "new"`, true},
		{"edit_file", `{"path":"f.txt","old":"a","new":"b","replace_all":"yes"}`, `argument "replace_all" must be a boolean`, true},
		{"edit_file", `{"path":"f.txt","old":"","new":"b"}`, `"old" must not be empty`, false},
		{"edit_file", `{"path":"f.txt","old":"b","new":"b"}`, "identical", false},
		{"shell", `{"command":["ls"]}`, `argument "command" must be a string`, true},
		{"shell", `{"command":"  "}`, `"command" must not be empty`, false},
		{"shell", ``, `missing required argument "command"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			tool := toolNamed(t, ws, testLimits(), tc.tool)
			res := run(t, tool, json.RawMessage(tc.args))
			wantFail(t, res, tc.tool+": ", tc.want)
			if tc.shape {
				// Argument-shape errors are caught by Summary as well.
				if s := tool.Summary(json.RawMessage(tc.args)); !strings.Contains(s, tc.want) {
					t.Errorf("Summary = %q, want it to contain %q", s, tc.want)
				}
			}
		})
	}
}

func TestEmptyArgumentsMeanDefaults(t *testing.T) {
	ws := newTestWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"f.txt": "x"})
	tool := toolNamed(t, ws, testLimits(), "list_dir")
	for _, args := range []string{``, `null`, `{}`, `{"path":null}`} {
		res := tool.Run(context.Background(), json.RawMessage(args))
		if !res.Success || res.Output != "f.txt\n" {
			t.Errorf("list_dir %q = %+v", args, res)
		}
	}
}
