package mcp

import "scv/internal/bytebudget"

// MaxProcessCatalogBytes bounds the tools all MCP servers of a process
// offer together (every session's, as toolBytes counts them), so that many
// sessions or many servers cannot grow scv without end. A server whose
// tools do not fit offers those that do, and its status names the rest.
const MaxProcessCatalogBytes = 64 << 20

// CatalogBudget is the bytes the servers of every Manager sharing it may
// hold in their catalogs. Its methods are safe for concurrent use.
type CatalogBudget struct{ b *bytebudget.Budget }

// NewCatalogBudget returns a budget of limit bytes; a process makes one
// of MaxProcessCatalogBytes and gives it to every Manager.
func NewCatalogBudget(limit int) *CatalogBudget {
	return &CatalogBudget{bytebudget.New(limit)}
}

// Used is how much of the budget is held.
func (b *CatalogBudget) Used() int { return b.b.Used() }

// take holds n bytes if they fit.
func (b *CatalogBudget) take(n int) bool { return b.b.TryTake(n) }

// give returns n bytes taken before.
func (b *CatalogBudget) give(n int) { b.b.Give(n) }
