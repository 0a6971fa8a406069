package ceiling

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"scv/runtime/config"
)

// docGates reads the policy table of docs/protocol.md ("Approval
// policies"): per policy, the gate of each class. MCP tools are gated like
// the write / exec / network column, as the page says below the table.
func docGates(t *testing.T) map[string]map[Class]config.Gate {
	t.Helper()
	page, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)`(?: \\(default\\))? \\| (run|ask) \\| (run|ask|denied without asking) \\|$")
	word := map[string]config.Gate{"run": config.GateRun, "ask": config.GateAsk, "denied without asking": config.GateDeny}
	out := map[string]map[Class]config.Gate{}
	for _, m := range row.FindAllStringSubmatch(string(page), -1) {
		risky := word[m[3]]
		out[m[1]] = map[Class]config.Gate{ReadOnly: word[m[2]], Write: risky, Exec: risky, MCP: risky}
	}
	if len(out) != len(config.Policies()) {
		t.Fatalf("the policy table of docs/protocol.md has rows for %d policies, want %v", len(out), config.Policies())
	}
	return out
}

// Every pair of a bound and a policy, and every pair of bounds, against the
// page's table: a policy is allowed when it gates every class at least as
// strictly as each bound; a preference is held to the per-class stricter
// gates, which must be some row's; two bounds no row meets are refused.
func TestTheCeilingFollowsThePolicyTableForEveryPair(t *testing.T) {
	table := docGates(t)
	asStrict := func(p string, bounds ...string) bool {
		for _, b := range bounds {
			for _, class := range Classes {
				if table[p][class] < table[b][class] {
					return false
				}
			}
		}
		return true
	}
	rowOf := func(gates map[Class]config.Gate) string {
		for _, p := range config.Policies() {
			if sameGates(table[p], gates) {
				return p
			}
		}
		return ""
	}
	for _, b := range config.Policies() {
		c, err := New(FlagBound(b, "scv lsp"))
		if err != nil {
			t.Fatalf("a ceiling of %s alone: %v", b, err)
		}
		for _, p := range config.Policies() {
			if got, want := c.Admits(p), asStrict(p, b); got != want {
				t.Errorf("ceiling %s admits %s: %v, the table says %v", b, p, got, want)
			}
			stricter := map[Class]config.Gate{}
			for _, class := range Classes {
				stricter[class] = max(table[p][class], table[b][class])
			}
			held, err := c.Hold(p)
			switch want := rowOf(stricter); {
			case want == "" && err == nil:
				t.Errorf("%s held to ceiling %s = %s, want an error: no row has the stricter gates", p, b, held)
			case want != "" && held != want:
				t.Errorf("%s held to ceiling %s = %q, %v; the table says %s", p, b, held, err, want)
			}
			if err := c.Check(p); (err == nil) != asStrict(p, b) {
				t.Errorf("ceiling %s checks %s: %v, the table says allowed=%v", b, p, err, asStrict(p, b))
			}
		}
		for _, b2 := range config.Policies() {
			var want []string
			for _, p := range config.Policies() {
				if asStrict(p, b, b2) {
					want = append(want, p)
				}
			}
			c, err := New(FlagBound(b, "scv lsp"), ProjectBound(b2, "/w/.scv/config.toml"))
			if len(want) == 0 {
				if err == nil {
					t.Errorf("a ceiling of %s and %s was built; the table allows no policy under both", b, b2)
				}
				continue
			}
			if err != nil || !slices.Equal(c.Allowed(), want) {
				t.Errorf("a ceiling of %s and %s allows %v (%v); the table says %v", b, b2, c.Allowed(), err, want)
			}
		}
	}
}

func sameGates(a, b map[Class]config.Gate) bool {
	for _, class := range Classes {
		if a[class] != b[class] {
			return false
		}
	}
	return true
}
