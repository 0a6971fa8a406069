package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"scv/lsp/schema"
	"scv/runtime/config"
)

// decodeMCPServers decodes scv/session/start's mcpServers onto the
// defaults of a configured server; an error names the server and member.
// The session validates what they mean.
func decodeMCPServers(raw map[string]json.RawMessage) (map[string]config.MCPServer, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]config.MCPServer, len(raw))
	for name, body := range raw {
		s, err := config.DecodeMCPServerJSON(body)
		if err != nil {
			return nil, invalidParams(fmt.Sprintf("params.mcpServers.%s: %v", name, err))
		}
		out[name] = s
	}
	return out, nil
}

func handleMcpList(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	return schema.McpListResult{Servers: s.MCPServers()}, nil
}

func handleSkillList(_ context.Context, c *conn, req *incoming) (any, error) {
	var p schema.SessionRef
	s, err := sessionOf(c, req, &p, &p.SessionID)
	if err != nil {
		return nil, err
	}
	res := schema.SkillListResult{Skills: []schema.SkillInfo{}}
	for _, k := range s.Skills() {
		res.Skills = append(res.Skills, schema.SkillInfo{Name: k.Name, Description: k.Description, Scope: k.Scope})
	}
	return res, nil
}
