package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"scv/runtime/config"
)

const (
	// ToolPrefix starts the name of every MCP tool the model sees.
	ToolPrefix = "mcp__"
	// toolSeparator separates the server from the tool in a full name.
	toolSeparator = "__"
	// MaxToolNameBytes is the longest function name OpenAI-compatible
	// endpoints accept; longer names are cut and given a hash suffix.
	MaxToolNameBytes = 64
	// MaxToolsPerServer bounds the tools one server may offer; the rest
	// are dropped with a note in the server's status.
	MaxToolsPerServer = 1000
	// MaxDescriptionBytes bounds one tool's description sent to the model.
	MaxDescriptionBytes = 4 << 10
	// MaxToolSchemaBytes bounds one tool's input schema: it goes into
	// every model request. A tool over it is left out, named in the
	// server's status.
	MaxToolSchemaBytes = 64 << 10
	// MaxServerCatalogBytes bounds the tools one server offers, names,
	// descriptions and schemas together; the tools past it are left out,
	// named in the server's status.
	MaxServerCatalogBytes = 1 << 20
	// MaxToolListPages bounds the pages of one tools/list; a server still
	// paging past it offers the tools of the pages read, and its status
	// says so.
	MaxToolListPages = 100
)

// Tool is one tool of a ready server, as offered to the model.
type Tool struct {
	Name        string          // mcp__SERVER__TOOL, safe as a function name
	Server      string          // the configured server name
	Remote      string          // the tool's name on its server
	Description string          // the server's description, bounded
	Schema      json.RawMessage // the tool's input JSON schema (an object schema)
	Trusted     bool            // [mcp_servers.NAME] trust = true
}

// fullName builds the name the model sees, keeping only the characters
// function names allow and at most MaxToolNameBytes of them.
func fullName(server, tool string) string {
	var b strings.Builder
	for _, r := range tool {
		if r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := ToolPrefix + server + toolSeparator + b.String()
	if len(name) <= MaxToolNameBytes && b.String() == tool {
		return name
	}
	// Cut or changed: a hash of the server and the real name keeps distinct
	// tools distinct, even when the cut reached into the server's name.
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name)+len(suffix) > MaxToolNameBytes {
		name = name[:MaxToolNameBytes-len(suffix)]
	}
	return name + suffix
}

// catalog turns a server's tool list into the tools offered, applying
// enabled_tools and disabled_tools. notes say what was dropped and why.
func catalog(server string, cfg config.MCPServer, list []*sdk.Tool) (offered []Tool, notes []string) {
	seen := make(map[string]string, len(list))
	for i, t := range list {
		if i >= MaxToolsPerServer {
			notes = append(notes, fmt.Sprintf("%d tools past the first %d dropped (MaxToolsPerServer)", len(list)-i, MaxToolsPerServer))
			break
		}
		if len(cfg.EnabledTools) > 0 && !slices.Contains(cfg.EnabledTools, t.Name) || slices.Contains(cfg.DisabledTools, t.Name) {
			continue
		}
		if t.Name == "" {
			notes = append(notes, "a tool without a name dropped")
			continue
		}
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			notes = append(notes, fmt.Sprintf("tool %q dropped: its input schema %v", t.Name, err))
			continue
		}
		name := fullName(server, t.Name)
		if other, dup := seen[name]; dup {
			notes = append(notes, fmt.Sprintf("tool %q dropped: its name %s is taken by %q", t.Name, name, other))
			continue
		}
		seen[name] = t.Name
		offered = append(offered, Tool{
			Name:        name,
			Server:      server,
			Remote:      t.Name,
			Description: cutUTF8(t.Description, MaxDescriptionBytes),
			Schema:      schema,
			Trusted:     cfg.Trust,
		})
	}
	return offered, notes
}

// objectSchema checks that a tool's input schema is a JSON Schema for an
// object, the only kind of arguments a function call carries.
func objectSchema(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot be encoded: %v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("is not valid JSON Schema: %v", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("is not an object schema (type %q)", s.Type)
	}
	return raw, nil
}
