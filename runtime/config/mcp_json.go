package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// DecodeMCPServerJSON decodes one server given at session start (the
// same shape as an [mcp_servers.NAME] table, with the JSON member names
// of MCPServer) onto the defaults, so an omitted key means what it means
// in a file. An unknown member is an error naming it.
func DecodeMCPServerJSON(raw []byte) (MCPServer, error) {
	s := NewMCPServer()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return MCPServer{}, fmt.Errorf("%s must be %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return MCPServer{}, errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return MCPServer{}, errors.New("holds more than one JSON value")
	}
	return s, nil
}

// ValidateMCPServersJSON checks servers given at session start with the
// rules of the configuration; each error names the bad member as prefix
// (say "params.mcpServers") .NAME.member, in the JSON spelling the
// client used rather than the TOML one.
func ValidateMCPServersJSON(servers map[string]MCPServer, prefix string) error {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		tomlKey := "mcp_servers." + name
		validateMCP(name, servers[name], func(key, format string, args ...any) {
			member := prefix + "." + name
			if field, ok := strings.CutPrefix(key, tomlKey+"."); ok {
				member += "." + mcpJSONName(field)
			}
			errs = append(errs, errors.New(member+": "+fmt.Sprintf(format, args...)))
		})
	}
	return errors.Join(errs...)
}

// mcpJSONName maps a TOML key of MCPServer to its JSON member name, read
// from the struct's own tags so the two spellings cannot drift apart.
func mcpJSONName(tomlKey string) string {
	t := reflect.TypeFor[MCPServer]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("toml") == tomlKey {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return name
		}
	}
	return tomlKey
}
