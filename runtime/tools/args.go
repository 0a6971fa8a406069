package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// paramType is the JSON type of one argument.
type paramType string

const (
	typeString  paramType = "string"
	typeInteger paramType = "integer"
	typeBoolean paramType = "boolean"
)

// param describes one argument. A tool's params drive both the schema the
// model sees and the validation of what it sends, so the two cannot drift.
type param struct {
	name     string
	typ      paramType
	desc     string
	required bool
}

type params []param

// schema renders the JSON schema of the arguments object.
func (ps params) schema() json.RawMessage {
	type prop struct {
		Type        paramType `json:"type"`
		Description string    `json:"description"`
	}
	props := make(map[string]prop, len(ps))
	required := []string{}
	for _, p := range ps {
		props[p.name] = prop{Type: p.typ, Description: p.desc}
		if p.required {
			required = append(required, p.name)
		}
	}
	out, err := json.Marshal(struct {
		Type                 string          `json:"type"`
		Properties           map[string]prop `json:"properties"`
		Required             []string        `json:"required"`
		AdditionalProperties bool            `json:"additionalProperties"`
	}{"object", props, required, false})
	if err != nil {
		// Only fixed strings and booleans go in: this cannot fail.
		panic(fmt.Sprintf("tools: marshal schema: %v", err))
	}
	return out
}

// decode checks raw against the params and then unmarshals it into dst, a
// pointer to a struct whose json tags match the param names. Errors name
// the offending argument. Empty or null arguments count as {}: models send
// them for tools whose arguments are all optional.
func (ps params) decode(raw json.RawMessage, dst any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return fmt.Errorf("arguments are not a JSON object: %v", err)
	}
	var unknown []string
	for name := range fields {
		if ps.find(name) == nil {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("unknown argument %s (allowed: %s)", strings.Join(unknown, ", "), ps.names())
	}
	for _, p := range ps {
		value, ok := fields[p.name]
		if !ok || bytes.Equal(bytes.TrimSpace(value), []byte("null")) {
			if p.required {
				return fmt.Errorf("missing required argument %q", p.name)
			}
			delete(fields, p.name)
			continue
		}
		if err := checkType(value, p.typ); err != nil {
			return fmt.Errorf("argument %q must be %s", p.name, article(p.typ))
		}
	}
	// Nulls were dropped above so they leave the zero value in dst.
	cleaned, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("re-encode arguments: %v", err)
	}
	if err := json.Unmarshal(cleaned, dst); err != nil {
		return fmt.Errorf("decode arguments: %v", err)
	}
	return nil
}

func (ps params) find(name string) *param {
	for i := range ps {
		if ps[i].name == name {
			return &ps[i]
		}
	}
	return nil
}

func (ps params) names() string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

func checkType(value json.RawMessage, typ paramType) error {
	switch typ {
	case typeString:
		var s string
		return json.Unmarshal(value, &s)
	case typeInteger:
		var n int
		return json.Unmarshal(value, &n)
	case typeBoolean:
		var b bool
		return json.Unmarshal(value, &b)
	}
	return fmt.Errorf("unknown parameter type %q", typ)
}

func article(typ paramType) string {
	if typ == typeInteger {
		return "an integer"
	}
	return "a " + string(typ)
}
