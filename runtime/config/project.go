package config

import (
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// A project file comes with a repository the user may not have read, so it
// may only make scv stricter than the user's own configuration (their file
// over the defaults): it cannot choose where the API key goes or which
// model answers, raise a limit, switch a feature back on, or loosen the
// approval policy. Each refusal is an error naming the key and the file.

// userLayer is the configuration a project file is held to: defaults and
// the user's file, before the project applies.
type userLayer struct {
	cfg    Config
	origin func(key string) string // the user's file, or OriginDefault
	file   string                  // the user's file, where the user may change it
	info   fs.FileInfo             // the user's file as read; nil when absent
}

// projectForbidden names the [provider] keys a project file may not set,
// and why.
func projectForbidden(key string) (reason string, forbidden bool) {
	switch key {
	case "base_url", "api_key", "api_key_env", "headers":
		return "a repository must not choose where your API key is sent", true
	case "kind", "replay_script":
		return "a repository must not choose what answers in place of the model", true
	}
	return "", false
}

// serverWide are the sections that shape the serving process, not one
// session: only the user's file sets them.
var serverWide = map[string]bool{"protocol": true, "daemon": true, "sessions": true, "checkpoints": true}

// errApprovalsInProject refuses allow rules in a project file: a
// repository must not approve its own commands.
func errApprovalsInProject(path, userFile string) error {
	return fmt.Errorf("approvals.allow may not be set in a project file (%s): a repository must not approve the commands it suggests, a project may only make scv stricter; add rules to %s",
		path, userFile)
}

// checkProjectKeys refuses what only the user may decide.
func checkProjectKeys(meta toml.MetaData, cfg *Config, user userLayer, path string) error {
	for _, key := range meta.Keys() {
		if len(key) >= 2 && key[0] == "provider" {
			if reason, forbidden := projectForbidden(key[1]); forbidden {
				return fmt.Errorf("%s may not be set in a project file (%s): %s; set it in %s or at session start",
					"provider."+key[1], path, reason, user.file)
			}
		}
		if key[0] == "mcp_servers" {
			return errMCPInProject(path, user.file)
		}
		if key[0] == "approvals" {
			return errApprovalsInProject(path, user.file)
		}
		if serverWide[key[0]] {
			return fmt.Errorf("[%s] holds server-wide settings and may not be set in a project file (%s); set them in %s",
				key[0], path, user.file)
		}
	}
	if meta.IsDefined("tools", "shell", "env_allow") {
		return fmt.Errorf("tools.shell.env_allow may not be set in a project file (%s): a repository must not pass your credentials to the commands it suggests; set it in %s",
			path, user.file)
	}
	if meta.IsDefined("agent", "approval_policy") {
		p, u := cfg.Agent.ApprovalPolicy, user.cfg.Agent.ApprovalPolicy
		// An unknown policy is validation's to report.
		if slices.Contains(Policies(), p) && !AtLeastAsStrict(p, u) {
			return fmt.Errorf("agent.approval_policy = %q in a project file (%s) is looser than your %q (from %s): a repository may only make approvals stricter; change it in %s or at session start",
				p, path, u, user.origin("agent.approval_policy"), user.file)
		}
	}
	for _, key := range meta.Keys() {
		if err := checkLimit(key, cfg, user, path); err != nil {
			return err
		}
	}
	return nil
}

// checkLimit holds one key the project set to the user's value: every
// integer is a limit the project may lower but not raise, every boolean a
// feature it may switch off but not on.
func checkLimit(key toml.Key, cfg *Config, user userLayer, path string) error {
	got, ok := fieldAt(reflect.ValueOf(cfg).Elem(), key)
	if !ok {
		return nil
	}
	mine, _ := fieldAt(reflect.ValueOf(&user.cfg).Elem(), key)
	name := key.String()
	switch got.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if got.Int() > mine.Int() {
			return fmt.Errorf("%s = %d in a project file (%s) is above your limit %d (from %s): a repository may only lower limits; raise it in %s if you mean to",
				name, got.Int(), path, mine.Int(), user.origin(name), user.file)
		}
	case reflect.Bool:
		if got.Bool() && !mine.Bool() {
			return fmt.Errorf("%s = true in a project file (%s) turns on what you turned off (in %s): a repository may only switch features off; set it in %s if you mean to",
				name, path, user.origin(name), user.file)
		}
	}
	return nil
}

// fieldAt finds the field a dotted TOML key names, by its toml tags.
func fieldAt(v reflect.Value, key toml.Key) (reflect.Value, bool) {
	for _, part := range key {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ",")
			if tag == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}, false
		}
	}
	return v, true
}

// ProjectBounds is what a project file sets that bounds a session's
// approval ceiling (runtime/ceiling): its approval policy and whether it
// switches tools off.
type ProjectBounds struct {
	File           string // the project file; empty when there is none
	ApprovalPolicy string // agent.approval_policy; empty when the file sets none
	ToolsOff       bool   // tools.enabled = false
}

// ProjectBoundsOf returns the bounds the project file of cwd sets. home is
// scv's home ("" for Home()).
func ProjectBoundsOf(home, cwd string) (ProjectBounds, error) {
	cfg, src, err := Load(LoadOptions{Home: home, Cwd: cwd})
	if err != nil || !src.ProjectFileFound {
		return ProjectBounds{}, err
	}
	b := ProjectBounds{File: src.ProjectFile}
	if src.Origin("agent.approval_policy") == src.ProjectFile {
		b.ApprovalPolicy = cfg.Agent.ApprovalPolicy
	}
	b.ToolsOff = src.Origin("tools.enabled") == src.ProjectFile && !cfg.Tools.Enabled
	return b, nil
}
