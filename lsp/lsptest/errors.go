package lsptest

import (
	"testing"

	"scv/lsp/client"
)

// ExpectError fails the test unless err is a server error with code and,
// when dataCode is not empty, data.code dataCode. It returns the error.
func ExpectError(t testing.TB, err error, code int64, dataCode string) *client.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want error %d %s", code, dataCode)
	}
	e, ok := client.AsError(err)
	if !ok {
		t.Fatalf("got %v, want a server error %d %s", err, code, dataCode)
	}
	if e.Code != code || (dataCode != "" && e.DataCode() != dataCode) {
		t.Fatalf("got error %d data.code=%q (%s), want %d %q", e.Code, e.DataCode(), e.Message, code, dataCode)
	}
	if e.Message == "" {
		t.Errorf("error %d %s has an empty message", code, dataCode)
	}
	return e
}
