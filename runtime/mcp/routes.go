package mcp

import (
	"fmt"
	"sync"
)

// routes is the table from the name the model sees to the one server that
// offers a tool under it. A call is routed through it, never by cutting
// the name apart: a name cut to MaxToolNameBytes may have lost the server,
// and a server name may itself contain '_'. A name holds one owner at a
// time; another server's tool with the same name is refused, so the tool
// the approval gate judges is the tool the call reaches.
type routes struct {
	mu    sync.Mutex
	owner map[string]*server
	names map[*server][]string // what each server holds, to release on its next claim
}

func newRoutes() *routes {
	return &routes{owner: map[string]*server{}, names: map[*server][]string{}}
}

// claim gives s the names of offered, in place of what it held before,
// and returns the tools s may offer: those whose name no other server
// holds. A server that goes down keeps its names, so a call to one of
// its tools is told the server is down rather than that no such tool
// exists.
func (r *routes) claim(s *server, offered []Tool) (kept []Tool, notes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range r.names[s] {
		delete(r.owner, name)
	}
	held := make([]string, 0, len(offered))
	for _, t := range offered {
		if other, taken := r.owner[t.Name]; taken && other != s {
			notes = append(notes, fmt.Sprintf("tool %q dropped: its name %s is taken by server %s", t.Remote, t.Name, other.name))
			continue
		}
		r.owner[t.Name] = s
		held = append(held, t.Name)
		kept = append(kept, t)
	}
	r.names[s] = held
	return kept, notes
}

// lookup finds the server that holds name; nil if none does.
func (r *routes) lookup(name string) *server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.owner[name]
}
