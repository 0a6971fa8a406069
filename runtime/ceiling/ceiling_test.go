package ceiling

import (
	"strings"
	"testing"
)

func TestACeilingAdmitsOnlyPoliciesAsStrictInEveryClass(t *testing.T) {
	flag := FlagBound("always", "scv lsp")
	project := ProjectBound("never", "/w/.scv/config.toml")
	for _, tc := range []struct {
		bounds  []Bound
		allowed string
	}{
		{nil, "never,on-risk,always,auto"},
		{[]Bound{FlagBound("auto", "scv lsp")}, "never,on-risk,always,auto"},
		{[]Bound{FlagBound("on-risk", "scv lsp")}, "never,on-risk,always"},
		{[]Bound{flag}, "always"},
		{[]Bound{project}, "never"},
		{[]Bound{FlagBound("on-risk", "scv lsp"), ProjectBound("always", "/w/.scv/config.toml")}, "always"},
	} {
		c, err := New(tc.bounds...)
		if err != nil {
			t.Fatalf("New(%v): %v", tc.bounds, err)
		}
		if got := strings.Join(c.Allowed(), ","); got != tc.allowed {
			t.Errorf("New(%v).Allowed() = %s, want %s", tc.bounds, got, tc.allowed)
		}
	}
	// always asks before reads, never refuses writes: no policy does both.
	_, err := New(flag, project)
	if err == nil {
		t.Fatal("a ceiling of always and never was built")
	}
	for _, want := range []string{`"always"`, "--approval=always of scv lsp", `"never"`, "agent.approval_policy in /w/.scv/config.toml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if _, err := New(Bound{Policy: "sometimes", Source: "x"}); err == nil || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("an unknown policy: %v", err)
	}
}

func TestHoldTightensAPreferenceAndCheckRefusesAChoice(t *testing.T) {
	onRisk, _ := New(FlagBound("on-risk", "scv lsp"))
	never, _ := New(ProjectBound("never", "/w/.scv/config.toml"))
	always, _ := New(FlagBound("always", "scv lsp"))
	for _, tc := range []struct {
		c            Ceiling
		policy, want string
	}{
		{Ceiling{}, "auto", "auto"},
		{onRisk, "auto", "on-risk"},
		{onRisk, "never", "never"},
		{never, "auto", "never"},
		{never, "on-risk", "never"},
		{always, "auto", "always"},
		{always, "on-risk", "always"},
	} {
		got, err := tc.c.Hold(tc.policy)
		if err != nil || got != tc.want {
			t.Errorf("%v.Hold(%s) = %q, %v; want %s", tc.c.Bounds(), tc.policy, got, err, tc.want)
		}
	}
	if got, err := always.Hold("never"); err == nil {
		t.Errorf("never held to always = %q, want an error: no policy runs reads unasked... and asks", got)
	} else if !strings.Contains(err.Error(), "--approval=always") {
		t.Errorf("%q does not name the ceiling's source", err)
	}
	if err := always.Check("auto"); err == nil || !strings.Contains(err.Error(), `"auto"`) || !strings.Contains(err.Error(), "--approval=always of scv lsp") {
		t.Errorf("Check(auto) under always: %v", err)
	}
	if err := onRisk.Check("always"); err != nil {
		t.Errorf("Check(always) under on-risk: %v", err)
	}
}

// A stored ceiling reads back the same, and one that a tampered file
// makes unmeetable is refused when it is rebuilt.
func TestACeilingRoundTripsThroughItsStoredForm(t *testing.T) {
	c, _ := New(FlagBound("on-risk", "scv lsp"), ProjectBound("always", "/w/.scv/config.toml"))
	c = c.WithToolsOff("--no-tools of scv lsp")
	data := c.Encode()
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(back.Allowed(), ",") != "always" || back.ToolsOff() != c.ToolsOff() {
		t.Errorf("read back %s as %+v", data, back)
	}
	if back, err := Decode(nil); err != nil || len(back.Allowed()) != 4 {
		t.Errorf("no stored ceiling (a file from before ceilings): %+v, %v", back, err)
	}
	bad := `{"approval":[{"policy":"always","source":"a"},{"policy":"never","source":"b"}]}`
	if _, err := Decode([]byte(bad)); err == nil {
		t.Errorf("a stored ceiling no policy meets was decoded")
	}
}

// Covers: a window's --approval holds under a ceiling that gates every
// class at least as strictly, and nowhere else.
func TestACeilingCoversABoundAsStrictInEveryClass(t *testing.T) {
	for _, tc := range []struct {
		ceiling []Bound
		window  string
		covered bool
	}{
		{nil, "", true},
		{nil, "auto", true},
		{nil, "always", false},
		{[]Bound{FlagBound("always", "a")}, "always", true},
		{[]Bound{FlagBound("always", "a")}, "on-risk", true},
		{[]Bound{FlagBound("on-risk", "a")}, "always", false},
		// never runs reads always asks about, always asks about writes
		// never refuses: neither covers the other.
		{[]Bound{ProjectBound("never", "/w")}, "always", false},
		{[]Bound{FlagBound("always", "a")}, "never", false},
		{nil, "sometimes", false},
	} {
		c, err := New(tc.ceiling...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Covers(FlagBound(tc.window, "window")); got != tc.covered {
			t.Errorf("ceiling %v covers --approval=%s: %v, want %v", tc.ceiling, tc.window, got, tc.covered)
		}
	}
}
