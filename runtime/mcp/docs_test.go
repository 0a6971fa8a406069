package mcp

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The protocol page quotes every catalog bound with its value.
func TestProtocolPageQuotesTheCatalogBounds(t *testing.T) {
	page, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ")
	for name, value := range map[string]int{
		"MaxToolSchemaBytes":          MaxToolSchemaBytes,
		"MaxServerCatalogBytes":       MaxServerCatalogBytes,
		"MaxToolsPerServer":           MaxToolsPerServer,
		"MaxToolListPages":            MaxToolListPages,
		"MaxToolListBytes":            MaxToolListBytes,
		"MaxProcessCatalogBytes":      MaxProcessCatalogBytes,
		"MaxServerMessageBytes":       MaxServerMessageBytes,
		"MaxUnansweredServerRequests": MaxUnansweredServerRequests,
	} {
		if quoted := fmt.Sprintf("`%s` = %d", name, value); !strings.Contains(text, quoted) {
			t.Errorf("docs/protocol.md does not quote %s", quoted)
		}
	}
}
