package mcp

import "sync"

// MaxProcessCatalogBytes bounds the tools all MCP servers of a process
// offer together (every session's, as toolBytes counts them), so that many
// sessions or many servers cannot grow scv without end. A server whose
// tools do not fit offers those that do, and its status names the rest.
const MaxProcessCatalogBytes = 64 << 20

// CatalogBudget is the bytes the servers of every Manager sharing it may
// hold in their catalogs. Its methods are safe for concurrent use.
type CatalogBudget struct {
	mu          sync.Mutex
	limit, used int
}

// NewCatalogBudget returns a budget of limit bytes; a process makes one
// of MaxProcessCatalogBytes and gives it to every Manager.
func NewCatalogBudget(limit int) *CatalogBudget {
	return &CatalogBudget{limit: limit}
}

// Used is how much of the budget is held.
func (b *CatalogBudget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// take holds n bytes if they fit.
func (b *CatalogBudget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes taken before.
func (b *CatalogBudget) give(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}
