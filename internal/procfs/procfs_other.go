//go:build !linux

package procfs

// Scan lists nothing where there is no /proc.
func Scan() []Proc { return nil }

// Read finds nothing where there is no /proc.
func Read(int) (Proc, bool) { return Proc{}, false }

// WaitNoReap cannot wait without reaping here; a group is then killed after
// Wait, with the small risk that its id was reused meanwhile.
func WaitNoReap(int) bool { return false }
