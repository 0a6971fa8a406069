// Package ceiling holds the most a session may ever be allowed to do
// without asking: its approval ceiling. A session's ceiling is fixed when it
// starts, from the sources that may only make scv stricter (the project's
// config file, the command-line flags of the process or forwarding
// connection that started it), and stored with the session. Every approval
// policy the session takes afterwards (at start, on a load, by
// scv/session/configure or an ACP mode switch) is held to it; the user's
// own config file is a default below it, never a source of it.
//
// The ceiling compares policies per tool class, not along one line: always
// asks before a read-only tool where never runs it, and never refuses a
// write where always asks, so neither is stricter than the other and a
// ceiling of both is met by no policy.
package ceiling

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"scv/runtime/config"
)

// Class is a kind of tool call the ceiling bounds on its own.
type Class string

const (
	ReadOnly Class = "read-only"
	Write    Class = "write"
	Exec     Class = "exec"
	MCP      Class = "mcp"
)

// Classes are every class, in the order an error names them.
var Classes = []Class{ReadOnly, Write, Exec, MCP}

// gate is what policy does with a call of class (the table of
// docs/protocol.md "Approval policies").
func gate(policy string, class Class) config.Gate {
	return config.PolicyGate(policy, class == ReadOnly)
}

// Bound is one source's word on the ceiling: the loosest policy it allows,
// and who said so, as an error names it.
type Bound struct {
	Policy string `json:"policy"`
	Source string `json:"source"`
}

// ProjectBound is the bound of a project file's agent.approval_policy.
func ProjectBound(policy, file string) Bound {
	return Bound{Policy: policy, Source: "agent.approval_policy in " + file}
}

// FlagBound is the bound of an --approval flag; who names the process
// that was given it.
func FlagBound(policy, who string) Bound {
	return Bound{Policy: policy, Source: "--approval=" + policy + " of " + who}
}

// Ceiling is a session's ceiling. The zero value bounds nothing: every
// policy is allowed and tools may be on. A Ceiling is built only by New,
// With and Decode, so one no policy meets never exists. A later bound (the
// sandbox mode a session may run tools in) belongs here beside these.
type Ceiling struct {
	// approval are the bounds on the approval policy; the ceiling per
	// class is the strictest gate any of them sets.
	approval []Bound
	// toolsOff names who switched the session's tools off for good (a
	// --no-tools flag); empty when tools may be on.
	toolsOff string
}

// stored is a Ceiling as a session's file holds it.
type stored struct {
	Approval []Bound `json:"approval,omitempty"`
	ToolsOff string  `json:"toolsOff,omitempty"`
}

// New returns the ceiling of bounds; a bound without a policy is skipped.
// An unknown policy, or bounds that no policy meets, are an error naming
// their sources.
func New(bounds ...Bound) (Ceiling, error) {
	return Ceiling{}.With(bounds...)
}

// With returns c tightened by bounds (see New).
func (c Ceiling) With(bounds ...Bound) (Ceiling, error) {
	out := Ceiling{approval: slices.Clone(c.approval), toolsOff: c.toolsOff}
	for _, b := range bounds {
		if b.Policy == "" {
			continue
		}
		if !slices.Contains(config.Policies(), b.Policy) {
			return Ceiling{}, fmt.Errorf("approval policy %q (%s) must be one of %v", b.Policy, b.Source, config.Policies())
		}
		if !slices.Contains(out.approval, b) {
			out.approval = append(out.approval, b)
		}
	}
	if len(out.Allowed()) == 0 {
		return Ceiling{}, fmt.Errorf("no approval policy meets %s: %s; change one of them",
			out.sources(), conflict(out.approval))
	}
	return out, nil
}

// Bounds are the sources of the approval ceiling, in the order given.
func (c Ceiling) Bounds() []Bound { return slices.Clone(c.approval) }

// ToolsOff names who switched the session's tools off for good; empty
// when tools may be on.
func (c Ceiling) ToolsOff() string { return c.toolsOff }

// WithToolsOff returns c with tools off for good, by who.
func (c Ceiling) WithToolsOff(who string) Ceiling {
	if c.toolsOff == "" {
		c.toolsOff = who
	}
	return c // approval is never changed in place (With clones it)
}

// limit is the loosest gate c allows for a call of class.
func (c Ceiling) limit(class Class) config.Gate {
	g := config.GateRun
	for _, b := range c.approval {
		g = max(g, gate(b.Policy, class))
	}
	return g
}

// Gate is g, the gate a call of class earns from the session's policy and
// anything beside it (an MCP server's trust), held to the ceiling: the
// stricter of g and the ceiling's own gate for that class. What the
// policy alone says is within the ceiling already (Hold, Check); this
// keeps what goes beyond the policy there too.
func (c Ceiling) Gate(class Class, g config.Gate) config.Gate {
	return max(g, c.limit(class))
}

// StricterThan reports whether c gates some class more strictly than base
// does: a load's bounds added to the ceiling a session stored.
func (c Ceiling) StricterThan(base Ceiling) bool {
	for _, class := range Classes {
		if c.limit(class) > base.limit(class) {
			return true
		}
	}
	return false
}

// Covers reports whether c gates every class at least as strictly as b
// does: b (a window's --approval) holds for whatever runs under c. An
// unknown policy is covered by nothing.
func (c Ceiling) Covers(b Bound) bool {
	if b.Policy == "" {
		return true
	}
	window, err := New(b)
	return err == nil && !window.StricterThan(c)
}

// Describe names the bounds for a message, or says there are none.
func (c Ceiling) Describe() string {
	if len(c.approval) == 0 {
		return "none (no project file or flag bounds it)"
	}
	return c.sources()
}

// Admits reports whether policy gates every class at least as strictly as
// the ceiling.
func (c Ceiling) Admits(policy string) bool {
	if !slices.Contains(config.Policies(), policy) {
		return false
	}
	for _, class := range Classes {
		if gate(policy, class) < c.limit(class) {
			return false
		}
	}
	return true
}

// Allowed are the policies c admits, in the order of config.Policies.
func (c Ceiling) Allowed() []string {
	var out []string
	for _, p := range config.Policies() {
		if c.Admits(p) {
			out = append(out, p)
		}
	}
	return out
}

// Hold is policy made as strict as the ceiling where it is looser: per
// class the stricter of the two gates, which must be some policy's. This is
// what a preference (start's approvalPolicy, a stored policy on a load)
// becomes under the ceiling. A policy and a ceiling whose stricter gates no
// policy has (never under an always ceiling) are an error naming both.
func (c Ceiling) Hold(policy string) (string, error) {
	if c.Admits(policy) {
		return policy, nil
	}
	for _, p := range config.Policies() {
		if c.tightens(p, policy) {
			return p, nil
		}
	}
	return "", fmt.Errorf("approval policy %q cannot be held to the session's ceiling %s: %s; choose one of %v",
		policy, c.sources(), conflict(append([]Bound{{Policy: policy, Source: "asked"}}, c.approval...)), c.Allowed())
}

// tightens reports whether p's gates are, per class, exactly the stricter
// of policy's and the ceiling's: p is policy held to c.
func (c Ceiling) tightens(p, policy string) bool {
	for _, class := range Classes {
		if gate(p, class) != max(gate(policy, class), c.limit(class)) {
			return false
		}
	}
	return true
}

// Check refuses a policy chosen outright (scv/session/configure, an ACP
// mode) that is looser than the ceiling in some class, naming the sources.
func (c Ceiling) Check(policy string) error {
	if c.Admits(policy) {
		return nil
	}
	return fmt.Errorf("approval policy %q is looser than this session's ceiling %s, fixed when the session started: it may be %v; a new session started without that bound may be looser",
		policy, c.sources(), c.Allowed())
}

// sources names the bounds for an error: `"always" (--approval=always of
// scv lsp) and "never" (agent.approval_policy in /w/.scv/config.toml)`.
func (c Ceiling) sources() string {
	parts := make([]string, 0, len(c.approval))
	for _, b := range c.approval {
		parts = append(parts, fmt.Sprintf("%q (%s)", b.Policy, b.Source))
	}
	return strings.Join(parts, " and ")
}

// conflict says, per class, which bounds pull apart: the strictest gate of
// one class and a bound that runs a class another bound only asks about.
func conflict(bounds []Bound) string {
	var parts []string
	for _, b := range bounds {
		var says []string
		for _, class := range Classes {
			says = append(says, class.String()+" "+gateName(gate(b.Policy, class)))
		}
		parts = append(parts, fmt.Sprintf("%q %s", b.Policy, strings.Join(compact(says), ", ")))
	}
	return strings.Join(parts, "; ")
}

func (c Class) String() string { return string(c) }

// compact folds "write ask, exec ask, mcp ask" into "write/exec/mcp ask".
func compact(says []string) []string {
	var out []string
	for _, s := range says {
		class, g, _ := strings.Cut(s, " ")
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], " "+g) {
			out[n-1] = strings.TrimSuffix(out[n-1], " "+g) + "/" + class + " " + g
			continue
		}
		out = append(out, s)
	}
	return out
}

func gateName(g config.Gate) string {
	switch g {
	case config.GateRun:
		return "run"
	case config.GateAsk:
		return "ask"
	default:
		return "denied"
	}
}

// Decode reads a ceiling stored with a session; nil or empty data (a file
// from before ceilings) is the zero ceiling. The bounds are checked again,
// so an edited file cannot hold a ceiling no policy meets.
func Decode(data []byte) (Ceiling, error) {
	if len(data) == 0 {
		return Ceiling{}, nil
	}
	var st stored
	if err := json.Unmarshal(data, &st); err != nil {
		return Ceiling{}, fmt.Errorf("stored approval ceiling: %w", err)
	}
	c, err := New(st.Approval...)
	if err != nil {
		return Ceiling{}, fmt.Errorf("stored approval ceiling: %w", err)
	}
	if st.ToolsOff != "" {
		c = c.WithToolsOff(st.ToolsOff)
	}
	return c, nil
}

// Encode is the form Decode reads.
func (c Ceiling) Encode() json.RawMessage {
	data, _ := json.Marshal(stored{Approval: c.approval, ToolsOff: c.toolsOff}) // strings only: cannot fail
	return data
}
