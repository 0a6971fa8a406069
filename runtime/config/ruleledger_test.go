package config

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"scv/internal/procfs"
)

// setRules writes the user's file with those allow rules.
func setRules(t *testing.T, home string, rules ...string) {
	t.Helper()
	quoted := make([]string, len(rules))
	for i, r := range rules {
		quoted[i] = strconv.Quote(r)
	}
	writeFile(t, UserFile(home), "[approvals]\nallow = ["+strings.Join(quoted, ", ")+"]\n")
}

func expectTrust(t *testing.T, w *RuleWatch, trusted, unconfirmed []string) {
	t.Helper()
	got, err := w.Trust()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Trusted, trusted) || !slices.Equal(got.Unconfirmed, unconfirmed) {
		t.Errorf("trusted %q, unconfirmed %q; want %q, %q", got.Trusted, got.Unconfirmed, trusted, unconfirmed)
	}
}

func watch(t *testing.T, w *RuleWatch) func() {
	t.Helper()
	end, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := end(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRulesAddedWhileNoCallRunsAreTrusted(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	setRules(t, home, "shell:ls *")
	expectTrust(t, w, []string{"shell:ls *"}, nil)
	setRules(t, home, "shell:ls *", "edit:docs/**")
	expectTrust(t, w, []string{"shell:ls *", "edit:docs/**"}, nil)
	// A call that adds nothing leaves them as they are.
	watch(t, w)()
	expectTrust(t, w, []string{"shell:ls *", "edit:docs/**"}, nil)
}

func TestRulesAddedDuringACallWaitUntilConfirmed(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	setRules(t, home, "shell:ls *")
	end := watch(t, w)
	setRules(t, home, "shell:ls *", "shell:touch *")
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
	end()
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
	// Rules added later, while no call runs, are the user's.
	setRules(t, home, "shell:ls *", "shell:touch *", "shell:cat *")
	expectTrust(t, w, []string{"shell:ls *", "shell:cat *"}, []string{"shell:touch *"})
	// "Always allow" with the rule confirms it, leaving the file as it is.
	before, _ := os.ReadFile(UserFile(home))
	if _, err := w.Add("shell:touch *"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(UserFile(home)); string(after) != string(before) {
		t.Errorf("confirming changed the file:\n%s", after)
	}
	expectTrust(t, w, []string{"shell:ls *", "shell:cat *", "shell:touch *"}, nil)
}

func TestARuleAddedAfterACallEndedIsTrusted(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	watch(t, w)()
	setRules(t, home, "shell:touch *")
	expectTrust(t, w, []string{"shell:touch *"}, nil)
}

func TestARuleScvWritesDuringAnotherCallIsTrusted(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	end := watch(t, w)
	defer end()
	if _, err := w.Add("shell:ls *"); err != nil {
		t.Fatal(err)
	}
	expectTrust(t, w, []string{"shell:ls *"}, nil)
}

func TestRemovedRulesAreForgotten(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	end := watch(t, w)
	setRules(t, home, "shell:touch *")
	end()
	expectTrust(t, w, nil, []string{"shell:touch *"})
	setRules(t, home)
	expectTrust(t, w, nil, nil)
	setRules(t, home, "shell:touch *")
	expectTrust(t, w, []string{"shell:touch *"}, nil)
}

// writeLedger writes the ledger as a process would have left it in the
// middle of a call.
func writeLedger(t *testing.T, home string, call watchedCall, trusted ...string) {
	t.Helper()
	data, err := json.Marshal(ruleLedger{Trusted: trusted, Calls: []watchedCall{call}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, RuleLedgerFile(home), string(data))
}

// A process killed during a call (a command can kill the daemon) leaves
// its call in the ledger: what appeared meanwhile is unconfirmed, and the
// call is settled so later hand edits are trusted again.
func TestACallOfADeadProcessIsSettledAsUnconfirmed(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	writeLedger(t, home, watchedCall{ID: "c1", PID: dead.Process.Pid}, "shell:ls *")
	setRules(t, home, "shell:ls *", "shell:touch *")
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
	setRules(t, home, "shell:ls *", "shell:touch *", "shell:cat *")
	expectTrust(t, w, []string{"shell:ls *", "shell:cat *"}, []string{"shell:touch *"})
}

// A call that another scv process is running counts like one of this
// process's.
func TestACallOfAnotherLiveProcessCounts(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	other := exec.Command("cat")
	stdin, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = other.Wait() }()
	writeLedger(t, home, watchedCall{ID: "c1", PID: other.Process.Pid})
	setRules(t, home, "shell:touch *")
	expectTrust(t, w, nil, []string{"shell:touch *"})
}

// A pid given again to another process does not keep a dead process's
// call running: the start time tells them apart.
func TestACallOfAPidGivenToAnotherProcessIsSettled(t *testing.T) {
	self, ok := procfs.Read(os.Getpid())
	if !ok {
		t.Skip("no process table to read start times from")
	}
	home := t.TempDir()
	w := NewRuleWatch(home)
	writeLedger(t, home, watchedCall{ID: "c1", PID: os.Getpid(), Start: self.Start + 1})
	setRules(t, home, "shell:touch *")
	expectTrust(t, w, nil, []string{"shell:touch *"})
	setRules(t, home, "shell:touch *", "shell:ls *")
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
}

// A ledger that does not parse trusts nothing new: every rule waits for
// the user, and the ledger is written anew.
func TestAnUnreadableLedgerTrustsNothing(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	setRules(t, home, "shell:touch *")
	writeFile(t, RuleLedgerFile(home), "{not json")
	expectTrust(t, w, nil, []string{"shell:touch *"})
	setRules(t, home, "shell:touch *", "shell:ls *")
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
}

// While the user's file does not parse, a call's end cannot settle it:
// the rules in the file once it parses again are unconfirmed.
func TestACallEndingOverABrokenFileStaysWatched(t *testing.T) {
	home := t.TempDir()
	w := NewRuleWatch(home)
	end, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, UserFile(home), "[approvals\n")
	if err := end(); err == nil {
		t.Error("a call's end over a broken file reported no error")
	}
	setRules(t, home, "shell:touch *")
	expectTrust(t, w, nil, []string{"shell:touch *"})
	setRules(t, home, "shell:touch *", "shell:ls *")
	expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
}

// A command that plants a rule and rewrites the ledger to trust it (or
// removes the ledger) gains nothing while the process that ran it lives:
// the process holds what appeared during its calls itself.
func TestARewrittenLedgerDoesNotFreeARuleThisProcessHeld(t *testing.T) {
	for _, forge := range []struct {
		name string
		do   func(t *testing.T, home string)
	}{
		{"trusted in the ledger", func(t *testing.T, home string) {
			writeFile(t, RuleLedgerFile(home), `{"trusted": ["shell:ls *", "shell:touch *"], "unconfirmed": [], "calls": []}`)
		}},
		{"ledger removed", func(t *testing.T, home string) {
			if err := os.Remove(RuleLedgerFile(home)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(forge.name, func(t *testing.T) {
			home := t.TempDir()
			w := NewRuleWatch(home)
			setRules(t, home, "shell:ls *")
			end := watch(t, w)
			setRules(t, home, "shell:ls *", "shell:touch *")
			forge.do(t, home)
			end()
			expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
			if _, err := w.Add("shell:touch *"); err != nil {
				t.Fatal(err)
			}
			expectTrust(t, w, []string{"shell:ls *", "shell:touch *"}, nil)
		})
	}
}

// A command that plants a rule and leaves the ledger unreadable (a named
// pipe, a directory, a file over the bound) or the lock file unusable,
// then lets it be cleared, gained the rule: the calls' end could not read
// the ledger, so this process never took in what appeared, and a cleared
// ledger trusts every rule. Now this process holds it whatever the ledger
// does, and the next reader of a ledger it can replace trusts nothing new.
func TestAnUnusableLedgerDuringACallFreesNoRule(t *testing.T) {
	for _, spoil := range []struct {
		name, path string
		do         func(path string) error
	}{
		{"named pipe", RuleLedgerName, func(p string) error { return unix.Mkfifo(p, 0o600) }},
		{"directory", RuleLedgerName, func(p string) error { return os.Mkdir(p, 0o700) }},
		{"over the bound", RuleLedgerName, func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat(" ", MaxFileBytes+1)), 0o600)
		}},
		{"lock file a directory", "." + FileName + ".lock", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		t.Run(spoil.name, func(t *testing.T) {
			home := t.TempDir()
			w := NewRuleWatch(home)
			setRules(t, home, "shell:ls *")
			expectTrust(t, w, []string{"shell:ls *"}, nil)
			end, err := w.Begin()
			if err != nil {
				t.Fatal(err)
			}
			setRules(t, home, "shell:ls *", "shell:touch *")
			path := filepath.Join(home, spoil.path)
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			if err := spoil.do(path); err != nil {
				t.Fatal(err)
			}
			end() // may fail: the ledger is not usable
			if got, err := w.Trust(); err == nil && slices.Contains(got.Trusted, "shell:touch *") {
				t.Errorf("the planted rule is trusted over the spoiled ledger: %+v", got)
			}
			// Another process, while it is spoiled or after it was repaired.
			if got, err := NewRuleWatch(home).Trust(); err == nil && slices.Contains(got.Trusted, "shell:touch *") {
				t.Errorf("another process trusts the planted rule: %+v", got)
			}
			// Cleared by hand, to make scv's warnings stop.
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			expectTrust(t, w, []string{"shell:ls *"}, []string{"shell:touch *"})
		})
	}
}
