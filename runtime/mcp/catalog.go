package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
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
	// MaxToolListBytes bounds what one tools/list reads, the tools left
	// out included (the SDK may keep every page it read); past it the list
	// is read no further.
	MaxToolListBytes = 8 << 20
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

// catalog builds the tools one server offers from its tool list, page by
// page, applying enabled_tools and disabled_tools and every bound: a tool
// whose schema is over MaxToolSchemaBytes is left out; the tools past
// MaxToolsPerServer or past MaxServerCatalogBytes are left out and the
// list is read no further. notes say what was left out and why.
type catalog struct {
	server string
	cfg    config.MCPServer
	tools  []Tool
	bytes  int // of tools, as toolBytes counts
	listed int // tools the server listed so far
	read   int // bytes of every tool listed so far, kept or not
	seen   map[string]string
	notes  notes
	full   bool // nothing more is taken: stop reading the list
}

func newCatalog(server string, cfg config.MCPServer) *catalog {
	return &catalog{server: server, cfg: cfg, seen: map[string]string{}}
}

// toolBytes is what one offered tool holds, for the catalog bounds.
func toolBytes(t Tool) int {
	return len(t.Name) + len(t.Remote) + len(t.Description) + len(t.Schema)
}

// add takes one listed tool, unless a bound says otherwise.
func (c *catalog) add(t *sdk.Tool) {
	if c.full {
		return
	}
	c.listed++
	if c.listed > MaxToolsPerServer {
		c.stopReading(fmt.Sprintf("the tools past the first %d left out (MaxToolsPerServer); the list was read no further", MaxToolsPerServer))
		return
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		raw = nil // objectSchema says why
	}
	c.read += len(t.Name) + len(t.Description) + len(raw)
	if c.read > MaxToolListBytes {
		c.stopReading(fmt.Sprintf("tool %s and those after it left out: the tool list reached MaxToolListBytes (%d bytes) read; it was read no further",
			quoteName(t.Name), MaxToolListBytes))
		return
	}
	if len(c.cfg.EnabledTools) > 0 && !slices.Contains(c.cfg.EnabledTools, t.Name) || slices.Contains(c.cfg.DisabledTools, t.Name) {
		return
	}
	if t.Name == "" {
		c.notes.add("a tool without a name dropped")
		return
	}
	schema, err := objectSchema(raw, err)
	if err != nil {
		c.notes.add(fmt.Sprintf("tool %s dropped: its input schema %v", quoteName(t.Name), err))
		return
	}
	name := fullName(c.server, t.Name)
	if other, dup := c.seen[name]; dup {
		c.notes.add(fmt.Sprintf("tool %s dropped: its name %s is taken by %s", quoteName(t.Name), name, quoteName(other)))
		return
	}
	tool := Tool{
		Name:        name,
		Server:      c.server,
		Remote:      t.Name,
		Description: cutUTF8(t.Description, MaxDescriptionBytes),
		Schema:      schema,
		Trusted:     c.cfg.Trust,
	}
	if c.bytes+toolBytes(tool) > MaxServerCatalogBytes {
		c.stopReading(fmt.Sprintf("tool %s and those after it left out: the server's tools reached MaxServerCatalogBytes (%d bytes); the list was read no further",
			quoteName(t.Name), MaxServerCatalogBytes))
		return
	}
	c.seen[name] = t.Name
	c.bytes += toolBytes(tool)
	c.tools = append(c.tools, tool)
}

// stopReading ends the listing: nothing more is taken, and why is said
// after every other note, however many there are.
func (c *catalog) stopReading(why string) {
	c.full = true
	c.notes.last = why
}

// quoteName quotes a server's tool name for a note, cut to a length that
// keeps a status readable whatever the server sends.
func quoteName(name string) string {
	const maxQuotedName = 100
	if len(name) > maxQuotedName {
		return strconv.Quote(cutUTF8(name, maxQuotedName)) + "…"
	}
	return strconv.Quote(name)
}

// maxNotes bounds the notes of one server's status: past it, only their
// number is kept.
const maxNotes = 20

// notes are what a status says was left out, bounded by maxNotes, and
// last, why the listing stopped, if it did.
type notes struct {
	list []string
	more int
	last string
}

func (n *notes) add(note string) {
	if len(n.list) < maxNotes {
		n.list = append(n.list, note)
		return
	}
	n.more++
}

func (n notes) all() []string {
	all := slices.Clip(n.list)
	if n.more > 0 {
		all = append(all, fmt.Sprintf("and %d more", n.more))
	}
	if n.last != "" {
		all = append(all, n.last)
	}
	return all
}

// objectSchema checks that a tool's input schema, raw as encoded (or the
// error encoding it), is a JSON Schema for an object, the only kind of
// arguments a function call carries.
func objectSchema(raw json.RawMessage, encodeErr error) (json.RawMessage, error) {
	if encodeErr != nil {
		return nil, fmt.Errorf("cannot be encoded: %v", encodeErr)
	}
	if len(raw) > MaxToolSchemaBytes {
		return nil, fmt.Errorf("is %d bytes, over MaxToolSchemaBytes (%d)", len(raw), MaxToolSchemaBytes)
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
