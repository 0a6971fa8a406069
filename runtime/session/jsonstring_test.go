package session

import (
	"strings"
	"testing"
)

func TestJSONStringLenCountsEscapes(t *testing.T) {
	cases := map[string]int{
		"":                       2,
		"plain":                  7,
		`a"b\c`:                  9,
		"tab\tnl\n":              11,
		"\x00":                   8,
		"é":                      4,
		"\u2028":                 8,
		"bad \xff":               12,
		strings.Repeat("x", 100): 102,
	}
	for in, want := range cases {
		if got := jsonStringLen(in); got != want {
			t.Errorf("jsonStringLen(%q) = %d, want %d", in, got, want)
		}
	}
}
