package session

import (
	"context"
	"slices"

	"scv/runtime/config"
	"scv/runtime/provider"
)

// Sources of a listed model.
const (
	ModelSourceConfig   = "config"
	ModelSourceProvider = "provider"
)

// ModelInfo is one model a picker may offer.
type ModelInfo struct {
	ID     string `json:"id"`
	Source string `json:"source"`
}

// ModelList is the answer of scv/model/list. Error says why the
// provider's own list is missing; the configured models are there anyway.
type ModelList struct {
	Models []ModelInfo `json:"models"`
	Error  string      `json:"error,omitempty"`
}

// ListModels lists the session's model, the configured ones
// (provider.model and provider.models) and, when the provider answers
// within provider.ModelListTimeout, the provider's, each id once. The
// provider's answer is cached per base URL (provider.ModelListTTL).
func (s *Session) ListModels(ctx context.Context) ModelList {
	s.mu.Lock()
	configured := []string{s.model}
	if s.cfg.Provider.Kind != config.KindReplay { // a replay session's model is "replay"
		configured = append(configured, s.cfg.Provider.Model)
	}
	configured = append(configured, s.configuredModels...)
	s.mu.Unlock()
	out := ModelList{Models: []ModelInfo{}}
	seen := map[string]bool{}
	add := func(id, source string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out.Models = append(out.Models, ModelInfo{ID: id, Source: source})
		}
	}
	for _, id := range configured {
		add(id, ModelSourceConfig)
	}
	lister, ok := s.provider.(provider.ModelLister)
	if !ok || s.modelCache == nil {
		return out
	}
	ids, err := s.modelCache.List(ctx, lister)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, id := range slices.Sorted(slices.Values(ids)) {
		add(id, ModelSourceProvider)
	}
	return out
}
