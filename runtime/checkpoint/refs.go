package checkpoint

import (
	"context"
	"fmt"
	"strings"
)

// A turn's trees are kept under refs/scv/<turn id>/before and /after (and
// /late, late.go). A turn id comes from a client's request, so it is
// checked for the shape of the ids scv gives out, and refs are looked up
// by their exact names: an id that is a git pattern ("*", "<prefix>*") or
// a ref path names no turn, and never reaches git as one.

// MaxTurnIDBytes bounds a turn id that names a checkpoint; scv's own are
// UUIDs (36 bytes).
const MaxTurnIDBytes = 128

// ValidTurnID reports whether id has the shape of a turn id: letters,
// digits, '-' and '_', starting with a letter or digit, at most
// MaxTurnIDBytes long. Any other id is no turn's.
func ValidTurnID(id string) bool {
	if id == "" || len(id) > MaxTurnIDBytes {
		return false
	}
	for i, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// setRefs points several refs/scv/<name> at their objects in one git run.
func (r *Repo) setRefs(ctx context.Context, refs map[string]string) error {
	var in strings.Builder
	for name, object := range refs {
		fmt.Fprintf(&in, "update refs/scv/%s %s\n", name, object)
	}
	_, err := r.g.run(ctx, strings.NewReader(in.String()), "update-ref", "--stdin")
	return err
}

// Ref returns what refs/scv/<name> points at, "" when no ref has exactly
// that name (for-each-ref takes a pattern; only the exact name counts).
func (r *Repo) Ref(ctx context.Context, name string) (string, error) {
	full := "refs/scv/" + name
	out, err := r.g.run(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname)", full)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if object, ref, ok := strings.Cut(line, " "); ok && ref == full {
			return object, nil
		}
	}
	return "", nil
}
