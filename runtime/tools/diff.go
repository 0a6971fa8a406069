package tools

import (
	"fmt"
	"strings"
)

const (
	// diffContext is the number of unchanged lines shown around a change.
	diffContext = 3
	// maxDiffEdits bounds the Myers search (its memory grows with the
	// square of the edit count). Past it the changed middle is shown as one
	// block removed and re-added: still a correct diff, just not minimal.
	maxDiffEdits = 1000
)

type editKind byte

const (
	editEqual editKind = iota
	editDelete
	editInsert
)

// edit is one line of a diff. aPos and bPos count the old and new lines
// that come before it.
type edit struct {
	kind       editKind
	line       string
	aPos, bPos int
}

// unifiedDiff renders the change from old to new as a unified diff with
// a/ and b/ headers, or "" when the contents are equal.
func unifiedDiff(path, old, new string) string {
	if old == new {
		return ""
	}
	edits := diffLines(splitLines(old), splitLines(new))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", path, path)
	for i := 0; i < len(edits); {
		first := nextChange(edits, i)
		if first < 0 {
			break
		}
		start := max(first-diffContext, i)
		last := first
		for j := first; j < len(edits); j++ {
			if edits[j].kind != editEqual {
				last = j
			} else if j-last > 2*diffContext {
				break
			}
		}
		end := min(last+diffContext+1, len(edits))
		writeHunk(&sb, edits[start:end])
		i = end
	}
	return sb.String()
}

func nextChange(edits []edit, from int) int {
	for i := from; i < len(edits); i++ {
		if edits[i].kind != editEqual {
			return i
		}
	}
	return -1
}

func writeHunk(sb *strings.Builder, hunk []edit) {
	aLen, bLen := 0, 0
	for _, e := range hunk {
		if e.kind != editInsert {
			aLen++
		}
		if e.kind != editDelete {
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(hunk[0].aPos, aLen), hunkRange(hunk[0].bPos, bLen))
	for _, e := range hunk {
		sb.WriteByte(" -+"[e.kind])
		sb.WriteString(e.line)
		if !strings.HasSuffix(e.line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange follows diff(1): an empty range names the line before it, a
// one-line range omits its length.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}

// splitLines cuts s after each newline; a last line without one is kept.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines lines up a and b: the common prefix and suffix first, Myers'
// shortest edit script for what lies between.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var kinds []editKind
	for range pre {
		kinds = append(kinds, editEqual)
	}
	kinds = append(kinds, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for range suf {
		kinds = append(kinds, editEqual)
	}
	edits := make([]edit, len(kinds))
	x, y := 0, 0
	for i, k := range kinds {
		e := edit{kind: k, aPos: x, bPos: y}
		switch k {
		case editEqual:
			e.line = a[x]
			x++
			y++
		case editDelete:
			e.line = a[x]
			x++
		case editInsert:
			e.line = b[y]
			y++
		}
		edits[i] = e
	}
	return edits
}

// myers returns the edit kinds turning a into b, in order.
func myers(a, b []string) []editKind {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(n, m)
	}
	// v[k] is the furthest x reached on diagonal k = x - y; trace[d] holds
	// the window of v (diagonals -d-1..d+1) as it was before step d.
	width := n + m + 2
	off := n + m + 1
	v := make([]int, 2*width)
	var trace [][]int
	for d := 0; d <= n+m; d++ {
		if d > maxDiffEdits {
			return replaceAll(n, m)
		}
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return replaceAll(n, m)
}

func backtrack(trace [][]int, n, m int) []editKind {
	var rev []editKind
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		w := trace[d]
		at := func(k int) int { return w[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, editEqual)
			x--
			y--
		}
		if d == 0 {
			break
		}
		if x == prevX {
			rev = append(rev, editInsert)
		} else {
			rev = append(rev, editDelete)
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func replaceAll(n, m int) []editKind {
	kinds := make([]editKind, 0, n+m)
	for range n {
		kinds = append(kinds, editDelete)
	}
	for range m {
		kinds = append(kinds, editInsert)
	}
	return kinds
}
