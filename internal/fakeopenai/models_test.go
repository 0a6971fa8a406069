package fakeopenai

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

func getModels(t *testing.T, s *Server) (int, []string) {
	t.Helper()
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	var ids []string
	for _, m := range body.Data {
		ids = append(ids, m.ID)
	}
	return resp.StatusCode, ids
}

func TestModelsEndpoint(t *testing.T) {
	s := New(t)
	if status, ids := getModels(t, s); status != 200 || !slices.Equal(ids, DefaultModels) {
		t.Errorf("default: %d %v", status, ids)
	}
	s.SetModels("x", "y")
	if _, ids := getModels(t, s); !slices.Equal(ids, []string{"x", "y"}) {
		t.Errorf("after SetModels: %v", ids)
	}
	s.FailModels(http.StatusUnauthorized)
	if status, _ := getModels(t, s); status != http.StatusUnauthorized {
		t.Errorf("after FailModels: %d", status)
	}
	// Listing is not a chat request: tests counting those are not disturbed.
	if n, got := s.ModelRequests(), len(s.Requests()); n != 3 || got != 0 {
		t.Errorf("%d model requests, %d chat requests recorded", n, got)
	}
}
