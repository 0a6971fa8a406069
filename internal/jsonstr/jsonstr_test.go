package jsonstr

import (
	"encoding/json"
	"testing"
)

func TestAppendJSONStringRoundTrips(t *testing.T) {
	cases := []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f ctl",
		"héllo wörld ✓ 😀", "\u2028\u2029", "bad \xff\xfe utf8", "<script>&</script>",
	}
	for _, in := range cases {
		out := Append(nil, in)
		if !json.Valid(out) {
			t.Fatalf("%q encoded to invalid JSON %s", in, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(in) // encoding/json's own reading of the same text
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("%q: round trip gave %q, encoding/json gives %q", in, back, wantBack)
		}
	}
}
