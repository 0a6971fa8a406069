package tools

// Registry holds the tools offered to the model, by name, in a stable
// order.
type Registry struct {
	order  []Tool
	byName map[string]int
}

// NewRegistry registers tools in the order given. A later tool with the
// same name as an earlier one replaces it in the earlier one's place, so a
// runtime can override a builtin.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{byName: make(map[string]int, len(tools))}
	for _, t := range tools {
		if i, ok := r.byName[t.Name()]; ok {
			r.order[i] = t
			continue
		}
		r.byName[t.Name()] = len(r.order)
		r.order = append(r.order, t)
	}
	return r
}

// Get finds a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return r.order[i], true
}

// All lists the tools in registration order. The slice is a copy.
func (r *Registry) All() []Tool {
	return append([]Tool(nil), r.order...)
}

// Builtin returns the standard tools confined to ws: the read-only ones
// first, then the writers, then shell, whose commands see scv's
// environment filtered by env. Limits left at zero take the defaults.
func Builtin(ws *Workspace, limits Limits, env ShellEnv) []Tool {
	limits = limits.withDefaults()
	return []Tool{
		newReadFile(ws, limits),
		newListDir(ws, limits),
		newGrep(ws, limits),
		newGlob(ws, limits),
		newWriteFile(ws, limits),
		newEditFile(ws, limits),
		newShell(ws, limits, env),
	}
}
