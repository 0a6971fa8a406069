package session

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
		out := appendJSONString(nil, in)
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

func TestEncodeParamsPutsHeaderFirst(t *testing.T) {
	raw, err := encodeParams("s1", 7, struct {
		TurnID string `json:"turnId"`
	}{"t1"})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"sessionId":"s1","seq":7,"turnId":"t1"}` {
		t.Fatalf("got %s", raw)
	}
	raw, _ = encodeParams("s1", 8, deltaFields{"t1", "a\"b"})
	if string(raw) != `{"sessionId":"s1","seq":8,"turnId":"t1","content":"a\"b"}` {
		t.Fatalf("got %s", raw)
	}
	raw, _ = encodeParams("s1", 9, nil)
	if string(raw) != `{"sessionId":"s1","seq":9}` {
		t.Fatalf("got %s", raw)
	}
}
