//go:build !linux

package tools

// waitNoReap cannot wait without reaping here; the group is then killed
// after Wait, with the small risk that its id was reused meanwhile.
func waitNoReap(int) bool { return false }
