package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// scvBin is the binary under test, built once by TestMain and only read
// afterwards.
var scvBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "scv-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	scvBin = filepath.Join(dir, "scv")
	args := []string{"build", "-o", scvBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "scv/cmd/scv")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go %v: %v\n%s", args, err, out)
		return 1
	}
	return m.Run()
}
