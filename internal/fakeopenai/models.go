package fakeopenai

import (
	"encoding/json"
	"net/http"
	"sync"
)

// DefaultModels are the ids GET /v1/models lists until SetModels.
var DefaultModels = []string{"fake-small", "fake-large"}

// models is what GET /v1/models answers, and how often it was asked.
type models struct {
	mu     sync.Mutex
	set    bool
	ids    []string
	status int // an error status instead of the list; 0: none
	asked  int
	held   chan struct{} // while non-nil, answers wait for it to close
}

// HoldModels makes GET /v1/models wait to answer until release is called
// (or the request ends): a test lines many listings up at once.
func (s *Server) HoldModels() (release func()) {
	held := make(chan struct{})
	s.models.mu.Lock()
	s.models.held = held
	s.models.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.models.mu.Lock()
			s.models.held = nil
			s.models.mu.Unlock()
			close(held)
		})
	}
}

// SetModels makes GET /v1/models list ids.
func (s *Server) SetModels(ids ...string) {
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	s.models.set, s.models.ids, s.models.status = true, ids, 0
}

// FailModels makes GET /v1/models answer status with an error body.
func (s *Server) FailModels(status int) {
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	s.models.status = status
}

// ModelRequests reports how many times GET /v1/models was asked.
func (s *Server) ModelRequests() int {
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	return s.models.asked
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, http.StatusMethodNotAllowed, "GET only")
		return
	}
	m := &s.models
	m.mu.Lock()
	m.asked++
	ids, status, held := m.ids, m.status, m.held
	if !m.set {
		ids = DefaultModels
	}
	m.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
	}
	if status != 0 {
		writeError(w, status, "scripted model list failure")
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		out.Data = append(out.Data, model{ID: id, Object: "model", OwnedBy: "fakeopenai"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
