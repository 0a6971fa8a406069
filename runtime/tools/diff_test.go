package tools

import (
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiffFormat(t *testing.T) {
	lines := func(from, to int) string {
		var sb strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&sb, "l%d\n", i)
		}
		return sb.String()
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"new file", "", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"emptied", "x\ny\n", "", "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"one line", "a\n", "b\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"},
		{
			"no newline at end", "a\nb", "a\nc",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
		{
			"newline added at end", "a\nb", "a\nb\n",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			"context of three", lines(1, 10), strings.Replace(lines(1, 10), "l5\n", "L5\n", 1),
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n",
		},
		{
			"insertion after a line", lines(1, 10), strings.Replace(lines(1, 10), "l5\n", "l5\nnew\n", 1),
			"--- a/f\n+++ b/f\n@@ -3,6 +3,7 @@\n l3\n l4\n l5\n+new\n l6\n l7\n l8\n",
		},
		{
			// Changes 7 unchanged lines apart get separate hunks...
			"two hunks", lines(1, 20), strings.NewReplacer("l3\n", "X\n", "l11\n", "Y\n").Replace(lines(1, 20)),
			"--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+X\n l4\n l5\n l6\n@@ -8,7 +8,7 @@\n l8\n l9\n l10\n-l11\n+Y\n l12\n l13\n l14\n",
		},
		{
			// ...6 apart share one.
			"merged hunk", lines(1, 20), strings.NewReplacer("l3\n", "X\n", "l10\n", "Y\n").Replace(lines(1, 20)),
			"--- a/f\n+++ b/f\n@@ -1,13 +1,13 @@\n l1\n l2\n-l3\n+X\n l4\n l5\n l6\n l7\n l8\n l9\n-l10\n+Y\n l11\n l12\n l13\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := unifiedDiff("f", tc.old, tc.new)
			if got != tc.want {
				t.Fatalf("diff:\n%s\nwant:\n%s", got, tc.want)
			}
			if got != "" {
				if applied := applyDiff(t, tc.old, got); applied != tc.new {
					t.Fatalf("applying the diff gives %q, want %q", applied, tc.new)
				}
			}
		})
	}
}

// TestDiffRandom checks on random inputs that each diff applies back to the
// new text and that the edit script is minimal (matches the LCS).
func TestDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	randText := func() string {
		var sb strings.Builder
		for range rng.Intn(30) {
			sb.WriteString(string(rune('a' + rng.Intn(4))))
			sb.WriteByte('\n')
		}
		if rng.Intn(4) == 0 {
			sb.WriteString("tail")
		}
		return sb.String()
	}
	for i := range 500 {
		old, new := randText(), randText()
		d := unifiedDiff("f", old, new)
		if got := applyDiff(t, old, d); got != new {
			t.Fatalf("case %d: applying\n%s\nto %q gives %q, want %q", i, d, old, got, new)
		}
		a, b := splitLines(old), splitLines(new)
		changes := 0
		for _, e := range diffLines(a, b) {
			if e.kind != editEqual {
				changes++
			}
		}
		if want := len(a) + len(b) - 2*lcsLen(a, b); changes != want {
			t.Fatalf("case %d: %d changed lines, minimal is %d", i, changes, want)
		}
	}
}

// TestDiffLarge goes past maxDiffEdits: the diff is no longer minimal but
// must still be correct.
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 3 * maxDiffEdits {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	d := unifiedDiff("big", a.String(), b.String())
	if got := applyDiff(t, a.String(), d); got != b.String() {
		t.Fatal("large diff does not apply")
	}
}

func lcsLen(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyDiff is an independent, strict patch applier for the tests.
func applyDiff(t *testing.T, old, diff string) string {
	t.Helper()
	src := splitLines(old)
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		t.Fatalf("bad headers in %q", diff)
	}
	var out []string
	pos := 0 // next unconsumed source line
	for i := 2; i < len(lines) && lines[i] != ""; {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		if m == nil {
			t.Fatalf("bad hunk header %q", lines[i])
		}
		oldStart, _ := strconv.Atoi(m[1])
		oldLen := 1
		if m[2] != "" {
			oldLen, _ = strconv.Atoi(m[2])
		}
		newLen := 1
		if m[4] != "" {
			newLen, _ = strconv.Atoi(m[4])
		}
		if oldLen > 0 {
			oldStart-- // to 0-based; an empty range names the line before
		}
		if oldStart < pos {
			t.Fatalf("hunk %q overlaps the previous one", lines[i])
		}
		out = append(out, src[pos:oldStart]...)
		pos = oldStart
		i++
		seenOld, seenNew := 0, 0
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			body := lines[i][1:]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
			}
			switch lines[i][0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					t.Fatalf("line %q does not match source line %d", lines[i], pos+1)
				}
				pos++
				seenOld++
				if lines[i][0] == ' ' {
					out = append(out, body)
					seenNew++
				}
			case '+':
				out = append(out, body)
				seenNew++
			default:
				t.Fatalf("bad diff line %q", lines[i])
			}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], "\\") {
				i++
			}
		}
		if seenOld != oldLen || seenNew != newLen {
			t.Fatalf("hunk counts -%d +%d, header says -%d +%d", seenOld, seenNew, oldLen, newLen)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}
