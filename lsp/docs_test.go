package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"scv/lsp/schema"
)

// documentedMethods returns the first-column names of every table in the
// protocol page whose header starts with "| method".
func documentedMethods(t *testing.T) []string {
	return documentedNames(t, "| method")
}

// documentedNames returns the first-column names of every table in the
// protocol page whose header starts with header.
func documentedNames(t *testing.T, header string) []string {
	t.Helper()
	page, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	inTable := false
	cell := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(string(page), "\n") {
		switch {
		case strings.HasPrefix(line, header):
			inTable = true
		case !strings.HasPrefix(line, "|"):
			inTable = false
		case inTable:
			if m := cell.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	sort.Strings(names)
	return names
}

func TestProtocolPageListsExactlyWhatTheServerHandlesAndSends(t *testing.T) {
	want := append(HandledMethods(), schema.Notifications...)
	sort.Strings(want)
	got := documentedMethods(t)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/protocol.md method tables differ from the code:\n documented: %v\n  in code:   %v", got, want)
	}
}

func TestProtocolPageListsTheRequestsTheServerSends(t *testing.T) {
	want := slices.Sorted(slices.Values(schema.ClientMethods))
	if got := documentedNames(t, "| request"); !slices.Equal(got, want) {
		t.Errorf("docs/protocol.md documents the server's requests %v; the schema lists %v", got, want)
	}
	if !strings.Contains(mustRead(t, "../docs/protocol.md"), fmt.Sprintf("%q: %d", "fileRequestTimeoutMs", FileRequestTimeout.Milliseconds())) {
		t.Errorf("docs/protocol.md does not quote fileRequestTimeoutMs %d", FileRequestTimeout.Milliseconds())
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestProtocolPageQuotesTheAdvertisedLimits(t *testing.T) {
	page, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Options{Mode: ModeDaemon, MaxConnections: 64})
	raw, _ := json.Marshal(srv.limits)
	var limits map[string]int
	if err := json.Unmarshal(raw, &limits); err != nil {
		t.Fatal(err)
	}
	for name, value := range limits {
		quoted := fmt.Sprintf("%q: %d", name, value)
		if !strings.Contains(string(page), quoted) {
			t.Errorf("docs/protocol.md does not quote %s", quoted)
		}
	}
}

func TestAdvertisedMethodsAreDispatched(t *testing.T) {
	for _, name := range AdvertisedMethods() {
		if m, ok := methodTable[name]; !ok || m.handle == nil {
			t.Errorf("%s is advertised but not dispatched", name)
		}
	}
	for name, m := range methodTable {
		if strings.HasPrefix(name, "scv/") && m.handle != nil && !contains(AdvertisedMethods(), name) {
			t.Errorf("%s is dispatched but not advertised", name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
