package provider_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

func TestOpenAIListsTheEndpointsModels(t *testing.T) {
	srv := fakeopenai.New(t)
	srv.SetModels("a", "b")
	p, err := provider.NewOpenAI(provider.OpenAIOptions{BaseURL: srv.URL(), APIKey: "secret-key-123"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := p.ListModels(context.Background())
	if err != nil || !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("ListModels = %v, %v", ids, err)
	}
	srv.FailModels(401)
	_, err = p.ListModels(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "secret-key-123") {
		t.Errorf("a refused listing gave %v", err)
	}
}
