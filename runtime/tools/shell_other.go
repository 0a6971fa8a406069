//go:build !linux

package tools

// becomeSubreaper has no equivalent here.
func becomeSubreaper() {}

// sweepCall has no process table to walk here: only the process group is
// killed.
func sweepCall(string, int, int) {}
