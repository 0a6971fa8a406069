package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var base = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// touch sets the session's UpdatedAt (its log's mtime).
func touch(t testing.TB, s *Store, cwd, id string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(logPath(s, id), at, at); err != nil {
		t.Fatal(err)
	}
}

func ids(page Page) []string {
	var out []string
	for _, s := range page.Sessions {
		out = append(out, s.ID)
	}
	return out
}

func mustList(t testing.TB, s *Store, opts ListOptions) Page {
	t.Helper()
	page, err := s.List(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Problems) != 0 {
		t.Fatalf("problems %v", page.Problems)
	}
	return page
}

func TestListOrderAndFields(t *testing.T) {
	s := newStore(t)
	for i, id := range []string{"a", "b", "c"} {
		createWith(t, s, id, "/p", i+1)
		touch(t, s, "/p", id, base.Add(time.Duration(i)*time.Minute))
	}
	// b is updated last; equal times order by id, descending.
	l, _ := mustLoad(t, s, "b")
	if err := l.SetMeta(Meta{Title: "renamed b", Turns: 2, Queued: 1}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	touch(t, s, "/p", "b", base.Add(time.Hour))
	createWith(t, s, "d", "/p", 0)
	touch(t, s, "/p", "d", base.Add(time.Hour))

	page := mustList(t, s, ListOptions{})
	if got := ids(page); !slices.Equal(got, []string{"d", "b", "c", "a"}) || page.NextCursor != "" {
		t.Fatalf("order %v, next %q", got, page.NextCursor)
	}
	b := page.Sessions[1]
	want := Summary{ID: "b", Title: "renamed b", Cwd: "/p", Model: "gpt-test", CreatedAt: testHeader("b", "").CreatedAt,
		UpdatedAt: base.Add(time.Hour), Turns: 2, Queued: 1}
	if !b.UpdatedAt.Equal(want.UpdatedAt) || !b.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("times %v %v", b.UpdatedAt, b.CreatedAt)
	}
	b.UpdatedAt, b.CreatedAt = want.UpdatedAt, want.CreatedAt
	if b != want {
		t.Fatalf("summary %+v, want %+v", b, want)
	}
}

func TestListPagingIsStable(t *testing.T) {
	s := newStore(t)
	var all []string
	for i := range 7 {
		id := fmt.Sprintf("s%d", i)
		createWith(t, s, id, "/p", 1)
		touch(t, s, "/p", id, base.Add(time.Duration(i)*time.Second))
		all = append([]string{id}, all...) // newest first
	}
	page := mustList(t, s, ListOptions{Limit: 3})
	if got := ids(page); !slices.Equal(got, all[:3]) || page.NextCursor == "" {
		t.Fatalf("page 1 %v", got)
	}
	// Sessions created and updated meanwhile go before the cursor and do
	// not shift the next page.
	createWith(t, s, "new", "/p", 1)
	touch(t, s, "/p", "new", base.Add(time.Hour))
	touch(t, s, "/p", "s6", base.Add(2*time.Hour))
	page2 := mustList(t, s, ListOptions{Limit: 3, Cursor: page.NextCursor})
	page3 := mustList(t, s, ListOptions{Limit: 3, Cursor: page2.NextCursor})
	if got := append(ids(page2), ids(page3)...); !slices.Equal(got, all[3:]) || page3.NextCursor != "" {
		t.Fatalf("pages 2 and 3 %v, next %q, want %v", got, page3.NextCursor, all[3:])
	}
	if got := ids(mustList(t, s, ListOptions{Limit: 2})); !slices.Equal(got, []string{"s6", "new"}) {
		t.Fatalf("fresh first page %v", got)
	}
}

func TestListFilterByCwd(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "a1", "/proj/a", 1)
	createWith(t, s, "b1", "/proj/b", 1)
	createWith(t, s, "a2", "/proj/a/", 1) // the same directory, spelled with a slash
	touch(t, s, "/proj/a", "a1", base)
	touch(t, s, "/proj/a", "a2", base.Add(time.Second))
	if got := ids(mustList(t, s, ListOptions{Cwd: "/proj/a"})); !slices.Equal(got, []string{"a2", "a1"}) {
		t.Fatalf("cwd /proj/a: %v", got)
	}
	if got := ids(mustList(t, s, ListOptions{Cwd: "/proj/c"})); len(got) != 0 {
		t.Fatalf("cwd /proj/c: %v", got)
	}
}

func TestListLimitsAndBadInput(t *testing.T) {
	s := newStore(t)
	for i := range DefaultListLimit + 1 {
		createWith(t, s, fmt.Sprintf("s%03d", i), "/p", 0)
	}
	if page := mustList(t, s, ListOptions{}); len(page.Sessions) != DefaultListLimit || page.NextCursor == "" {
		t.Fatalf("default page: %d rows", len(page.Sessions))
	}
	if page := mustList(t, s, ListOptions{Limit: MaxListLimit + 1}); len(page.Sessions) != DefaultListLimit+1 {
		t.Fatalf("large limit: %d rows", len(page.Sessions))
	}
	if _, err := s.List(ListOptions{Limit: -1}); err == nil {
		t.Fatal("negative limit accepted")
	}
	for _, c := range []string{"garbage!", "bm90LWEtY3Vyc29y", "MTIzLi4vZXNjYXBl"} {
		if _, err := s.List(ListOptions{Cursor: c}); !errors.Is(err, ErrBadCursor) {
			t.Fatalf("cursor %q: %v", c, err)
		}
	}
}

func TestListWithoutSidecarAndUnreadable(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "plain", "/p", 1)
	os.Remove(filepath.Join(s.Dir(), metaName("/p", "plain")))
	writeFile(t, logPath(s, "future"), `{"v":9,"id":"future","cwd":"/p"}`+"\n")
	writeFile(t, filepath.Join(s.Dir(), "unrelated.txt"), "x")
	page, err := s.List(ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page); !slices.Equal(got, []string{"plain"}) || page.Sessions[0].Title != "title of plain" || page.Sessions[0].Cwd != "/p" {
		t.Fatalf("listed %+v", page.Sessions)
	}
	if len(page.Problems) != 1 || !errors.Is(page.Problems[0], ErrFormat) {
		t.Fatalf("problems %v", page.Problems)
	}
}

func TestLoadRestoresAMissingSidecar(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "s1", "/p", 1)
	os.Remove(filepath.Join(s.Dir(), metaName("/p", "s1")))
	if got := ids(mustList(t, s, ListOptions{Cwd: "/p"})); len(got) != 0 {
		t.Fatalf("listed without a sidecar: %v", got)
	}
	l, _ := mustLoad(t, s, "s1")
	l.Close()
	if got := ids(mustList(t, s, ListOptions{Cwd: "/p"})); !slices.Equal(got, []string{"s1"}) {
		t.Fatalf("after load: %v", got)
	}
}

// TestListPagesAManySessionStore pages through more sessions than List
// holds at a time (it keeps about two pages while scanning), with
// unreadable logs among them that a page skips and fills in after.
func TestListPagesAManySessionStore(t *testing.T) {
	s := newStore(t)
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("s%02d", i)
		if i%7 == 3 {
			// Unreadable: listed as a problem, in its place.
			writeFile(t, logPath(s, id), `{"v":9,"id":"`+id+`","cwd":"/p"}`+"\n")
			at := base.Add(time.Duration(i) * time.Second)
			if err := os.Chtimes(logPath(s, id), at, at); err != nil {
				t.Fatal(err)
			}
			continue
		}
		createWith(t, s, id, "/p", 1)
		touch(t, s, "/p", id, base.Add(time.Duration(i)*time.Second))
		want = append([]string{id}, want...) // newest first
	}
	var got []string
	problems := 0
	opts := ListOptions{Limit: 3}
	for pages := 0; ; pages++ {
		page, err := s.List(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Sessions) != 3 && page.NextCursor != "" {
			t.Fatalf("page %d has %d rows and a next page", pages, len(page.Sessions))
		}
		got = append(got, ids(page)...)
		problems += len(page.Problems)
		if page.NextCursor == "" || pages > 40 {
			break
		}
		opts.Cursor = page.NextCursor
	}
	if !slices.Equal(got, want) || problems != 6 {
		t.Fatalf("listed %v with %d problems, want %v and 6", got, problems, want)
	}
}
