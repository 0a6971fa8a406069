package acp_test

import (
	"os"
	"strings"
	"testing"

	"scv/acp"
)

// Every request the door serves is on the ACP page.
func TestDocsNameEveryMethod(t *testing.T) {
	page, err := os.ReadFile("../docs/acp.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range acp.Methods() {
		if !strings.Contains(string(page), "`"+m) {
			t.Errorf("docs/acp.md does not document %s", m)
		}
	}
}
