package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"scv/internal/procfs"
)

// RuleLedgerName is the file in $SCV_HOME where scv records where the allow
// rules of the user's file came from, so that a rule a tool call wrote
// (a shell command appending "shell:touch *" to config.toml) is not applied
// behind the user's back:
//
//   - trusted rules are the user's: in the file while no tool call ran
//     (added by hand, in any editor), or written or confirmed by scv on the
//     user's "Always allow" answer;
//   - unconfirmed rules appeared while a tool call that can change files
//     ran, in any scv process using this home; they apply only once the
//     user confirms them;
//   - calls are the tool calls running now, by process. A call whose
//     process died (a command can kill the daemon) is settled by the next
//     reader: every rule that appeared meanwhile is unconfirmed.
//
// The ledger is edited under the same lock as the user's file. A rule
// removed from the file is forgotten. A ledger that cannot be read is taken
// as a call that never ended: every rule is unconfirmed until the user
// confirms it, never trusted by default.
const RuleLedgerName = "rule-ledger.json"

// RuleLedgerFile is the ledger's path in home.
func RuleLedgerFile(home string) string { return filepath.Join(home, RuleLedgerName) }

type ruleLedger struct {
	Trusted     []string      `json:"trusted"`
	Unconfirmed []string      `json:"unconfirmed"`
	Calls       []watchedCall `json:"calls"`
}

// watchedCall is one tool call during which new rules are unconfirmed.
type watchedCall struct {
	ID  string `json:"id"`
	PID int    `json:"pid"`
	// Start is the process's start time (procfs.Proc.Start), so that
	// another process given the same pid is not taken for it; 0 when
	// unknown.
	Start uint64 `json:"start,omitempty"`
	// Ended: the call is over but the rules could not be read then; the
	// next reader that can read them settles it.
	Ended bool `json:"ended,omitempty"`
}

// unreadableLedger stands for the calls of a ledger that no longer parses.
const unreadableLedger = "unreadable-ledger"

// newWatchedCall names a call of this process.
func newWatchedCall() watchedCall {
	call := watchedCall{ID: uuid.NewString(), PID: os.Getpid()}
	if self, ok := procfs.Read(call.PID); ok {
		call.Start = self.Start
	}
	return call
}

// end records that the call is over: settled when the rules could be
// read (what appeared during it is unconfirmed by then), else left for
// the next reader to settle.
func (l *ruleLedger) end(call watchedCall, rulesRead bool) {
	i := slices.IndexFunc(l.Calls, func(c watchedCall) bool { return c.ID == call.ID })
	switch {
	case i < 0:
	case rulesRead:
		l.Calls = slices.Delete(l.Calls, i, i+1)
	default:
		l.Calls[i].Ended = true
	}
}

// updateRuleLedger settles the ledger against the user's file and applies
// edit, under the user file's lock; edit learns whether the file's rules
// could be read. The ledger is written only when it changed.
func updateRuleLedger(home string, edit func(l *ruleLedger, rulesRead bool)) error {
	home, err := orHome(home)
	if err != nil {
		return err
	}
	unlock, err := lockUserFile(home)
	if err != nil {
		return fmt.Errorf("lock %s: %w", UserFile(home), err)
	}
	defer unlock()
	return updateRuleLedgerLocked(home, edit)
}

func updateRuleLedgerLocked(home string, edit func(l *ruleLedger, rulesRead bool)) error {
	path := RuleLedgerFile(home)
	l, old, err := readRuleLedger(path)
	if err != nil {
		return err
	}
	rules, rulesErr := userAllowRules(home)
	if rulesErr == nil {
		l.settle(rules)
	}
	edit(&l, rulesErr == nil)
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if !bytes.Equal(data, old) {
		if err := writeFileAtomic(path, data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return rulesErr
}

// readRuleLedger reads the ledger and the bytes it was read from; a
// missing ledger is empty (nothing is running, every rule is the user's),
// one that does not parse is an unended call.
func readRuleLedger(path string) (ruleLedger, []byte, error) {
	var l ruleLedger
	data, _, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l, nil, nil
	case err != nil:
		return l, nil, err
	}
	if json.Unmarshal(data, &l) != nil {
		return ruleLedger{Calls: []watchedCall{{ID: unreadableLedger, Ended: true}}}, data, nil
	}
	for i, c := range l.Calls {
		if !c.Ended && !c.running() {
			l.Calls[i].Ended = true
		}
	}
	return l, data, nil
}

// userAllowRules reads approvals.allow of the user's file.
func userAllowRules(home string) ([]string, error) {
	path := UserFile(home)
	data, _, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := decodeRaw(data, path)
	if err != nil {
		return nil, err
	}
	return allowList(raw, path)
}

// settle sorts the rules now in the user's file: known rules keep their
// standing, a new one is unconfirmed while any call is watched (running,
// or ended unsettled) and trusted otherwise. Rules gone from the file are
// forgotten, and ended calls are settled.
func (l *ruleLedger) settle(rules []string) {
	watching := len(l.Calls) > 0
	for _, r := range rules {
		if slices.Contains(l.Trusted, r) || slices.Contains(l.Unconfirmed, r) {
			continue
		}
		if watching {
			l.Unconfirmed = append(l.Unconfirmed, r)
		} else {
			l.Trusted = append(l.Trusted, r)
		}
	}
	gone := func(r string) bool { return !slices.Contains(rules, r) }
	l.Trusted = slices.DeleteFunc(l.Trusted, gone)
	l.Unconfirmed = slices.DeleteFunc(l.Unconfirmed, gone)
	l.Calls = slices.DeleteFunc(l.Calls, func(c watchedCall) bool { return c.Ended })
}

// trust records rule as the user's.
func (l *ruleLedger) trust(rule string) {
	l.Unconfirmed = slices.DeleteFunc(l.Unconfirmed, func(r string) bool { return r == rule })
	if !slices.Contains(l.Trusted, rule) {
		l.Trusted = append(l.Trusted, rule)
	}
}

// running reports whether the process that recorded the call is still
// there: the same pid with the same start time, not yet exited. Where the
// process table cannot be read, a process with that pid (one of another
// user still counts) is taken for it.
func (c watchedCall) running() bool {
	if c.PID <= 0 {
		return false
	}
	if p, ok := procfs.Read(c.PID); ok {
		return !p.Zombie && (c.Start == 0 || p.Start == c.Start)
	}
	err := unix.Kill(c.PID, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
