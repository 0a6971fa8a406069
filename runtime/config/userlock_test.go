package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A process that takes the user file's lock and never lets it go (a
// command's job that escaped its call, a stuck tool) made every rule check
// and "Always allow" of every scv process on this home wait for it
// forever, in a flock no cancel could end. The wait is bounded: the check
// fails, so the call is asked about, and the error names the lock.
func TestAHeldUserFileLockBoundsTheWait(t *testing.T) {
	home := t.TempDir()
	setRules(t, home, "shell:ls *")
	holder, err := os.OpenFile(filepath.Join(home, "."+FileName+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	w := NewRuleWatch(home)
	if _, err := w.Trust(); err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("Trust under a held lock: %v, want an error naming the lock", err)
	}
	if _, err := AppendAllowRule(home, "shell:cat *"); err == nil || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("AppendAllowRule under a held lock: %v, want an error naming the lock", err)
	}
	holder.Close()
	expectTrust(t, w, []string{"shell:ls *"}, nil)
}

// The protocol page quotes the bound.
func TestProtocolQuotesTheUserFileLockWait(t *testing.T) {
	data, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	want := fmt.Sprintf("at most %g s (`UserFileLockWait`)", UserFileLockWait.Seconds())
	if !strings.Contains(text, want) {
		t.Errorf("docs/protocol.md does not say %q", want)
	}
}
