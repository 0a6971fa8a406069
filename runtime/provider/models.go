package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Bounds of asking a provider which models it serves (GET /models).
const (
	// ModelListTimeout bounds one listing: a picker must not wait on a
	// slow or absent endpoint.
	ModelListTimeout = 2 * time.Second
	// ModelListTTL is how long a provider's answer is reused, per base URL.
	ModelListTTL = 10 * time.Minute
	// maxModelListBytes bounds the answer read.
	maxModelListBytes = 4 << 20
)

// ModelLister is a provider that can list its models.
type ModelLister interface {
	// ModelsKey identifies the endpoint asked (its base URL), the key of
	// ModelCache.
	ModelsKey() string
	ListModels(ctx context.Context) ([]string, error)
}

// ModelsKey is the provider's base URL.
func (p *OpenAI) ModelsKey() string { return p.baseURL }

// ListModels asks the endpoint's GET /models, with the provider's
// credentials and headers, for the ids of its models.
func (p *OpenAI) ListModels(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.baseURL+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("list models: %s", p.redact(err.Error()))
	}
	if p.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := p.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list models: %s", p.redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list models: %s/models answered HTTP %d", redactURL(p.baseURL), resp.StatusCode)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelListBytes)).Decode(&body); err != nil {
		return nil, fmt.Errorf("list models: %s/models: not a model list: %s", redactURL(p.baseURL), p.redact(err.Error()))
	}
	ids := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// ModelCache keeps each endpoint's model list for ModelListTTL, so a
// picker opened in every window asks the provider once. A failure is not
// kept: the next listing asks again.
type ModelCache struct {
	now     func() time.Time
	timeout time.Duration // ModelListTimeout; shorter in tests
	mu      sync.Mutex
	entries map[string]modelEntry
}

type modelEntry struct {
	ids []string
	at  time.Time
}

// NewModelCache returns an empty cache on the clock now (time.Now when nil).
func NewModelCache(now func() time.Time) *ModelCache {
	if now == nil {
		now = time.Now
	}
	return &ModelCache{now: now, timeout: ModelListTimeout, entries: map[string]modelEntry{}}
}

// List returns l's models, from the cache while fresh, else asking within
// ModelListTimeout.
func (c *ModelCache) List(ctx context.Context, l ModelLister) ([]string, error) {
	key := l.ModelsKey()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < ModelListTTL {
		return e.ids, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	ids, err := l.ListModels(ctx)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("list models: %s did not answer within %s", redactURL(key), c.timeout)
		}
		return nil, err
	}
	c.mu.Lock()
	c.entries[key] = modelEntry{ids: ids, at: c.now()}
	c.mu.Unlock()
	return ids, nil
}
