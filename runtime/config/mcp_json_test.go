package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecodeMCPServerJSONAppliesDefaults(t *testing.T) {
	got, err := DecodeMCPServerJSON([]byte(`{"command":"node","args":["srv.js"],"toolTimeoutSec":5,"trust":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := MCPServer{Command: "node", Args: []string{"srv.js"}, Enabled: true,
		StartupTimeoutSec: DefaultMCPStartupTimeoutSec, ToolTimeoutSec: 5, Trust: true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestDecodeMCPServerJSONNamesBadMembers(t *testing.T) {
	for raw, want := range map[string]string{
		`{"command":"x","startup_timeout_sec":3}`: `unknown field "startup_timeout_sec"`,
		`{"command":"x","args":"a b"}`:            "args must be []string",
		`{"command":"x"} {}`:                      "more than one JSON value",
	} {
		_, err := DecodeMCPServerJSON([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error holding %q", raw, err, want)
		}
	}
}

func TestValidateMCPServersJSONNamesTheJSONMember(t *testing.T) {
	bad := NewMCPServer()
	bad.Command = "x"
	bad.StartupTimeoutSec = -1
	bad.BearerTokenEnvVar = "TOKEN"
	err := ValidateMCPServersJSON(map[string]MCPServer{"a": bad, "b__c": {Command: "y", StartupTimeoutSec: 1, ToolTimeoutSec: 1}}, "params.mcpServers")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"params.mcpServers.a.startupTimeoutSec: must be positive",
		"params.mcpServers.a.bearerTokenEnvVar: applies only to a url",
		"params.mcpServers.b__c: server names may hold only",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not hold %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "mcp_servers") || strings.Contains(err.Error(), "startup_timeout_sec") {
		t.Errorf("%v names a TOML key", err)
	}
}
