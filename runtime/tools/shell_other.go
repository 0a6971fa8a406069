//go:build !linux

package tools

// waitNoReap cannot wait without reaping here; the group is then killed
// after Wait, with the small risk that its id was reused meanwhile.
func waitNoReap(int) bool { return false }

// becomeSubreaper has no equivalent here.
func becomeSubreaper() {}

// sweepCall has no process table to walk here: only the process group is
// killed.
func sweepCall(string, int, int) {}
