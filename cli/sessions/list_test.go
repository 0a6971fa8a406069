package sessions

import (
	"strings"
	"testing"
	"time"

	"scv/lsp/schema"
)

func TestAge(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for stamp, want := range map[string]string{
		"2026-12-01T11:59:15Z":      "45s",
		"2026-12-01T11:48:00.5Z":    "11m",
		"2026-12-01T09:00:00Z":      "3h",
		"2026-11-22T12:00:00Z":      "9d",
		"2026-12-01T12:00:09Z":      "0s", // a clock ahead of ours
		"":                          "",
		"yesterday":                 "",
		"2026-12-01T13:00:00+02:00": "1h",
	} {
		if got := Age(stamp, now); got != want {
			t.Errorf("Age(%q) = %q, want %q", stamp, got, want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	turns := 4
	page := Page{NextCursor: "c\x1b", Sessions: []Row{
		{Summary: schema.Summary{SessionID: "new", Cwd: "/w\t\x1b[2J", State: "stored", Queued: 2}, Title: "Fix\nthe build", UpdatedAt: "2026-12-01T11:00:00Z", Turns: &turns},
		{Summary: schema.Summary{SessionID: "old", Cwd: "/v", State: "idle", CreatedAt: "2026-11-30T12:00:00Z"}},
	}}
	var b strings.Builder
	WriteTable(&b, page, now)
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 5 {
		t.Fatalf("the table has %d lines:\n%s", len(lines), b.String())
	}
	for i, want := range [][]string{
		{"SESSION", "TITLE", "AGE", "STATE", "TURNS", "QUEUED", "CWD"},
		{"new", `Fix\nthe build`, "1h", "stored", "4", "2", `/w\t\x1b[2J`},
		{"old", "1d", "idle", "0", "/v"},
		{"more: scv sessions --cursor", `c\x1b`},
	} {
		for _, cell := range want {
			if !strings.Contains(lines[i], cell) {
				t.Errorf("line %d lacks %q: %q", i, cell, lines[i])
			}
		}
	}
	if strings.ContainsAny(b.String(), "\x1b\t") {
		t.Errorf("a raw control character reached the table:\n%q", b.String())
	}
	b.Reset()
	WriteTable(&b, Page{}, now)
	if b.String() != "no sessions\n" {
		t.Errorf("an empty page prints %q", b.String())
	}
}
