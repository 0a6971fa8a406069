package acp_test

import (
	"fmt"
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

// The page gives the live output limits the door advertises, with their
// values.
func TestDocsGiveTheLiveOutputLimits(t *testing.T) {
	page, err := os.ReadFile("../docs/acp.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]int{"MaxLiveOutputBytes": acp.MaxLiveOutputBytes, "MaxLiveCalls": acp.MaxLiveCalls} {
		if want := fmt.Sprintf("`%s`, %d", name, v); !strings.Contains(string(page), want) {
			t.Errorf("docs/acp.md does not say %s", want)
		}
	}
}
