package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPrune(t *testing.T) {
	s := newStore(t)
	now := time.Now()
	ages := map[string]time.Duration{"new": 0, "mid": time.Hour, "old": 48 * time.Hour, "older": 72 * time.Hour, "kept": 96 * time.Hour, "busy": 120 * time.Hour}
	for id, age := range ages {
		createWith(t, s, id, "/p", 1)
		touch(t, s, "/p", id, now.Add(-age))
	}
	busy, _ := mustLoad(t, s, "busy")
	defer busy.Close()
	keep := func(id string) bool { return id == "kept" }

	// By age: older than a day, but not kept or locked.
	removed, err := s.Prune(0, 24*time.Hour, keep)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, []string{"old", "older"}) {
		t.Fatalf("removed by age %v", removed)
	}
	// By count: kept and busy still count toward it.
	removed, err = s.Prune(3, 0, keep)
	if err != nil || !slices.Equal(removed, nil) {
		t.Fatalf("count 3 removed %v, %v", removed, err)
	}
	removed, err = s.Prune(1, 0, keep)
	if err != nil || !slices.Equal(removed, []string{"mid"}) {
		t.Fatalf("count 1 removed %v, %v", removed, err)
	}
	if got := ids(mustList(t, s, ListOptions{})); !slices.Equal(got, []string{"new", "kept", "busy"}) {
		t.Fatalf("left %v", got)
	}
	if _, err := s.Prune(-1, 0, nil); err == nil {
		t.Fatal("negative count accepted")
	}
}

func TestPruneSweepsLeftovers(t *testing.T) {
	s := newStore(t)
	createWith(t, s, "live", "/p", 1)
	orphan := filepath.Join(s.Dir(), metaName("/p", "gone"))
	staleTemp := filepath.Join(s.Dir(), tempPrefix+"old")
	freshTemp := filepath.Join(s.Dir(), tempPrefix+"fresh")
	for _, p := range []string{orphan, staleTemp, freshTemp} {
		writeFile(t, p, "{}")
	}
	old := time.Now().Add(-2 * staleTempAge)
	os.Chtimes(staleTemp, old, old)
	if _, err := s.Prune(0, 0, nil); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{orphan: false, staleTemp: false, freshTemp: true,
		logPath(s, "live"): true, filepath.Join(s.Dir(), metaName("/p", "live")): true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
