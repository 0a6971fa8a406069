package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"scv/internal/regfile"
)

const (
	// FileName is the configuration file's name, in the home and in a
	// project's ProjectDir.
	FileName = "config.toml"
	// ProjectDir is the per-project directory, relative to the workspace.
	ProjectDir = ".scv"
	// HomeEnv overrides the home directory (default ~/.scv).
	HomeEnv = "SCV_HOME"
	// DefaultHomeDir is the home's name under the user's home directory.
	DefaultHomeDir = ".scv"
	// MaxFileBytes bounds a configuration file; anything larger is a mistake.
	MaxFileBytes = 1 << 20
)

// Labels Sources.Origin returns for values that did not come from a file.
const (
	OriginDefault = "defaults"
	OriginSession = "session parameters"
	OriginFlags   = "command-line flags"
)

// Overrides are values given at session start or on the command line; an
// empty string (or nil) leaves the key alone. Their JSON form is what a
// forwarding `scv lsp` sends the daemon as
// initialize's initializationOptions.scv.flags.
type Overrides struct {
	Provider       string `json:"provider,omitempty"`       // provider.kind
	Model          string `json:"model,omitempty"`          // provider.model
	BaseURL        string `json:"baseUrl,omitempty"`        // provider.base_url
	ApprovalPolicy string `json:"approvalPolicy,omitempty"` // agent.approval_policy
	NoTools        *bool  `json:"noTools,omitempty"`        // tools.enabled = !NoTools
}

// IsZero reports whether o sets nothing.
func (o Overrides) IsZero() bool { return o == Overrides{} }

// With returns o with every value top sets replacing o's: the layering of
// a forwarding bridge's flags under the serving process's own.
func (o Overrides) With(top Overrides) Overrides {
	pick := func(low, high string) string {
		if high != "" {
			return high
		}
		return low
	}
	o.Provider = pick(o.Provider, top.Provider)
	o.Model = pick(o.Model, top.Model)
	o.BaseURL = pick(o.BaseURL, top.BaseURL)
	o.ApprovalPolicy = pick(o.ApprovalPolicy, top.ApprovalPolicy)
	if top.NoTools != nil {
		o.NoTools = top.NoTools
	}
	return o
}

// LoadOptions says where to look and what to apply on top of the files.
type LoadOptions struct {
	// Home is scv's home directory; empty means Home().
	Home string
	// Cwd is the session's workspace; empty means no project file (the
	// server's own configuration).
	Cwd string
	// Overrides are the session/start parameters.
	Overrides Overrides
	// Flags are command-line flags, applied last.
	Flags Overrides
}

// Sources records where the configuration came from, for status reports.
type Sources struct {
	UserFile         string // <home>/config.toml, whether or not it exists
	UserFileFound    bool
	ProjectFile      string // <cwd>/.scv/config.toml; empty without a Cwd
	ProjectFileFound bool
	// Warnings are problems worth showing that do not stop loading.
	Warnings []string
	// origins maps a dotted key (and each of its parent tables) to the file
	// or label that set it last.
	origins map[string]string
}

// Files lists the configuration files that were read, in the order applied.
func (s Sources) Files() []string {
	var files []string
	if s.UserFileFound {
		files = append(files, s.UserFile)
	}
	if s.ProjectFileFound {
		files = append(files, s.ProjectFile)
	}
	return files
}

// Origin names what set a dotted key ("tools.max_read_bytes"): a file path,
// OriginSession, OriginFlags, or OriginDefault.
func (s Sources) Origin(key string) string {
	if o, ok := s.origins[key]; ok {
		return o
	}
	return OriginDefault
}

func (s *Sources) set(key, origin string) {
	if s.origins == nil {
		s.origins = make(map[string]string)
	}
	s.origins[key] = origin
}

// Home returns scv's home directory: $SCV_HOME, else ~/.scv.
func Home() (string, error) {
	if h := os.Getenv(HomeEnv); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("resolve %s=%q: %w", HomeEnv, h, err)
		}
		return abs, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory (set %s): %w", HomeEnv, err)
	}
	return filepath.Join(u, DefaultHomeDir), nil
}

// UserFile returns the path of the user's configuration file in home.
func UserFile(home string) string { return filepath.Join(home, FileName) }

// ProjectFile returns the path of a workspace's configuration file.
func ProjectFile(cwd string) string { return filepath.Join(cwd, ProjectDir, FileName) }

// Load merges, lowest first: Defaults, the user's file, the project's file,
// opts.Overrides, opts.Flags; then validates the result.
func Load(opts LoadOptions) (Config, Sources, error) {
	home, err := orHome(opts.Home)
	if err != nil {
		return Config{}, Sources{}, err
	}
	cfg := Defaults()
	src := Sources{UserFile: UserFile(home)}

	found, userInfo, err := applyFile(&cfg, &src, src.UserFile, nil)
	if err != nil {
		return Config{}, src, err
	}
	src.UserFileFound = found

	if opts.Cwd != "" {
		if !filepath.IsAbs(opts.Cwd) {
			return Config{}, src, fmt.Errorf("load config: workspace %q is not an absolute path", opts.Cwd)
		}
		src.ProjectFile = ProjectFile(opts.Cwd)
		user := &userLayer{cfg: cfg, origin: src.Origin, file: src.UserFile, info: userInfo}
		found, _, err := applyFile(&cfg, &src, src.ProjectFile, user)
		if err != nil {
			return Config{}, src, err
		}
		src.ProjectFileFound = found
	}

	applyOverrides(&cfg, &src, opts.Overrides, OriginSession)
	applyOverrides(&cfg, &src, opts.Flags, OriginFlags)

	if err := cfg.validate(src.Origin); err != nil {
		return Config{}, src, err
	}
	return cfg, src, nil
}

// applyFile decodes path over cfg; a missing file is not an error. user is
// nil for the user's own file; for a project file it holds what the project
// is checked against. The user's file is never also read as a project file
// (a workspace at the home directory), however the paths are spelled.
func applyFile(cfg *Config, src *Sources, path string, user *userLayer) (bool, fs.FileInfo, error) {
	data, info, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	project := user != nil
	if project && user.info != nil && os.SameFile(info, user.info) {
		return false, nil, nil
	}
	// A list decoded from a file replaces the one before it; a project's
	// env_deny is added to the user's instead, so it can only hide more.
	userDeny := slices.Clone(cfg.Tools.Shell.EnvDeny)
	meta, err := toml.Decode(string(data), cfg)
	if err != nil {
		return false, nil, fmt.Errorf("config %s: %w", path, err)
	}
	if err := checkUndecoded(meta, path); err != nil {
		return false, nil, err
	}
	applyMCPDefaults(cfg, meta)
	if project {
		if err := checkProjectKeys(meta, cfg, *user, path); err != nil {
			return false, nil, err
		}
		if meta.IsDefined("tools", "shell", "env_deny") {
			cfg.Tools.Shell.EnvDeny = append(userDeny, cfg.Tools.Shell.EnvDeny...)
		}
	}
	for _, key := range meta.Keys() {
		for i := range key {
			src.set(strings.Join(key[:i+1], "."), path)
		}
	}
	// A relative replay script is relative to the file that names it, not to
	// whatever directory the server happens to run in.
	if meta.IsDefined("provider", "replay_script") && cfg.Provider.ReplayScript != "" &&
		!filepath.IsAbs(cfg.Provider.ReplayScript) {
		cfg.Provider.ReplayScript = filepath.Join(filepath.Dir(path), cfg.Provider.ReplayScript)
	}
	if !project && meta.IsDefined("provider", "api_key") && info.Mode().Perm()&0o077 != 0 {
		src.Warnings = append(src.Warnings, fmt.Sprintf(
			"%s holds provider.api_key but other users can read it (mode %04o); run chmod 600 %s",
			path, info.Mode().Perm(), path))
	}
	return true, info, nil
}

// readFile reads a configuration file, which must be a regular file: a
// FIFO or device in its place is refused at once instead of blocking.
func readFile(path string) ([]byte, fs.FileInfo, error) {
	data, info, err := regfile.ReadFile(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read config %s: %w", path, errorText(err))
	}
	return data, info, nil
}

// errorText drops the path an fs error repeats.
func errorText(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkUndecoded reports keys the Config has no field for. Only the
// outermost unknown key of a table is named: "[foo] bar = 1" is "foo".
func checkUndecoded(meta toml.MetaData, path string) error {
	undecoded := meta.Undecoded()
	seen := make(map[string]bool, len(undecoded))
	var names []string
	for _, key := range undecoded {
		name := key.String()
		seen[name] = true
		if len(key) > 1 && seen[key[:len(key)-1].String()] {
			continue
		}
		names = append(names, fmt.Sprintf("%q", name))
	}
	switch len(names) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("unknown key %s in %s", names[0], path)
	default:
		return fmt.Errorf("unknown keys %s in %s", strings.Join(names, ", "), path)
	}
}

func applyOverrides(cfg *Config, src *Sources, o Overrides, origin string) {
	set := func(dst *string, v, key string) {
		if v != "" {
			*dst = v
			src.set(key, origin)
		}
	}
	set(&cfg.Provider.Kind, o.Provider, "provider.kind")
	set(&cfg.Provider.Model, o.Model, "provider.model")
	set(&cfg.Provider.BaseURL, o.BaseURL, "provider.base_url")
	set(&cfg.Agent.ApprovalPolicy, o.ApprovalPolicy, "agent.approval_policy")
	if o.NoTools != nil {
		cfg.Tools.Enabled = !*o.NoTools
		src.set("tools.enabled", origin)
	}
}

// SessionsDir is where sessions are stored: $SCV_HOME/sessions.
func SessionsDir(home string) string { return filepath.Join(home, "sessions") }

// CheckpointsDir is where turn checkpoints are kept: $SCV_HOME/checkpoints.
func CheckpointsDir(home string) string { return filepath.Join(home, "checkpoints") }
