package lsp

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"scv/lsp/schema"
)

// The protocol page's scv/session/configure row names every field of its
// answer (allowedPolicies, what a mode picker may offer, included).
func TestProtocolPageNamesEveryFieldOfTheConfigureAnswer(t *testing.T) {
	page, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(line, "| `"+schema.MethodSessionConfigure+"` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatalf("docs/protocol.md has no row for %s", schema.MethodSessionConfigure)
	}
	cells := strings.Split(row, " | ")
	if len(cells) < 3 {
		t.Fatalf("the %s row has no answer cell: %s", schema.MethodSessionConfigure, row)
	}
	answer := cells[2]
	typ := reflect.TypeFor[schema.SessionConfigureResult]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(answer, name) {
			t.Errorf("the %s answer on docs/protocol.md does not name %s: %s", schema.MethodSessionConfigure, name, answer)
		}
	}
}
