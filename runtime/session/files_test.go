package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scv/internal/fakeopenai"
	"scv/runtime/provider"
)

// textFiles answers every read with one text: which window's it is.
type textFiles string

func (f textFiles) ReadText(context.Context, string, int, int) (string, error) { return string(f), nil }
func (f textFiles) WriteText(context.Context, string, string) error            { return errors.ErrUnsupported }

// A prompt's own file access serves its turn's file tools, even when the
// prompt waited in the queue behind another turn; a prompt without one
// gets the session's.
func TestAPromptsFileAccessServesItsTurn(t *testing.T) {
	srv := fakeopenai.New(t)
	hold := make(chan struct{})
	read := fakeopenai.Reply{ToolCalls: []provider.ToolCall{{ID: "r", Name: "read_file", Arguments: `{"path":"a.txt"}`}}}
	srv.Enqueue(
		fakeopenai.Reply{Chunks: []string{"working"}, Hold: hold},
		read, fakeopenai.Reply{Chunks: []string{"read"}},
		read, fakeopenai.Reply{Chunks: []string{"read again"}},
	)
	home, work := homeFor(t, srv, "[agent]\napproval_policy = \"auto\"\n"), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("on disk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Home: home, Getenv: func(string) string { return "" }})
	t.Cleanup(func() { m.Shutdown() })
	rec := newWaitingRecorder()
	s, _, err := m.Start(StartParams{Cwd: work}, rec)
	if err != nil {
		t.Fatal(err)
	}
	s.SetFileAccess(textFiles("the session's\n"))

	startTurn(t, s, "hold on")
	if _, err := srv.WaitRequests(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if res, err := s.StartTurnWithFiles("read a.txt", nil, "2", textFiles("the prompt's window\n")); err != nil || res.Status != "queued" {
		t.Fatalf("the second prompt: %+v, %v; want queued", res, err)
	}
	close(hold)
	rec.waitFor(t, TurnCompleted{}, 2)
	startTurn(t, s, "read a.txt again")
	rec.waitFor(t, TurnCompleted{}, 3)

	reqs, err := srv.WaitRequests(5, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{2: "the prompt's window", 4: "the session's"} {
		var got string
		for _, msg := range reqs[i].Messages {
			if msg.Role == "tool" {
				got = msg.Content
			}
		}
		if !strings.Contains(got, want) {
			t.Errorf("request %d told the model %q, want %s text", i, got, want)
		}
	}
}
