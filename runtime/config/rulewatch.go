package config

import (
	"slices"
	"sync"
)

// RuleWatch is one process's guard over the allow rules of the user's file:
// it keeps the rule ledger (see RuleLedgerName) and, in memory, its own
// account of the rules that appeared while its tool calls ran, which a
// command rewriting the ledger cannot change. The sessions of a process
// share one.
type RuleWatch struct {
	home string

	mu      sync.Mutex
	running int             // this process's watched calls
	seen    map[string]bool // the rules of the file as last read
	held    map[string]bool // rules of seen that wait for the user
}

// RuleTrust sorts the allow rules of the user's file.
type RuleTrust struct {
	Trusted     []string // the user's: they apply
	Unconfirmed []string // appeared while a tool call ran: they wait for the user
}

// NewRuleWatch returns the guard for the user's file in home ("" for Home()).
func NewRuleWatch(home string) *RuleWatch {
	return &RuleWatch{home: home, seen: map[string]bool{}, held: map[string]bool{}}
}

// Trust sorts the rules of the user's file into those scv may apply and
// those that wait for the user's confirmation. A rule is trusted only when
// both the ledger and this process trust it.
func (w *RuleWatch) Trust() (RuleTrust, error) {
	var trust RuleTrust
	err := w.update(func(l *ruleLedger, _ bool) {
		for _, r := range l.Trusted {
			if w.held[r] {
				trust.Unconfirmed = append(trust.Unconfirmed, r)
			} else {
				trust.Trusted = append(trust.Trusted, r)
			}
		}
		trust.Unconfirmed = append(trust.Unconfirmed, l.Unconfirmed...)
	})
	return trust, err
}

// Begin records that a tool call which can change files starts: until the
// returned func records its end, a rule that appears in the user's file is
// unconfirmed. The func must be called once, when the call is over (its
// processes gone). Even when the ledger cannot be written, this process
// still holds what appears meanwhile.
func (w *RuleWatch) Begin() (end func() error, err error) {
	call := newWatchedCall()
	counted := false
	err = w.update(func(l *ruleLedger, _ bool) {
		l.Calls = append(l.Calls, call)
		w.running++
		counted = true
	})
	if !counted {
		w.mu.Lock()
		w.running++
		w.mu.Unlock()
	}
	return func() error {
		err := w.update(func(l *ruleLedger, rulesRead bool) { l.end(call, rulesRead) })
		w.mu.Lock()
		w.running--
		w.mu.Unlock()
		return err
	}, err
}

// Add appends rule to the user's file, or confirms it when it is there
// already (see AppendAllowRule), on the user's "Always allow". It returns
// the file's path.
func (w *RuleWatch) Add(rule string) (string, error) {
	path, err := AppendAllowRule(w.home, rule)
	if err != nil {
		return path, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[rule] = true
	delete(w.held, rule)
	return path, nil
}

// update is updateRuleLedger with this process's account brought up to
// date from the settled ledger first; edit runs with w.mu held. When the
// ledger cannot be used at all (it is a named pipe, a directory, too
// large; the lock cannot be taken), this process's account still takes in
// the user's file: a command that spoils the ledger while it plants a rule
// must not leave the rule unseen, to be trusted once the ledger is cleared.
func (w *RuleWatch) update(edit func(l *ruleLedger, rulesRead bool)) error {
	edited := false
	err := updateRuleLedger(w.home, func(l *ruleLedger, rulesRead bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		edited = true
		if rulesRead {
			w.observeLocked(l)
		}
		edit(l, rulesRead)
	})
	if home, homeErr := orHome(w.home); !edited && homeErr == nil {
		if rules, rulesErr := userAllowRules(home); rulesErr == nil {
			w.mu.Lock()
			w.observeLocked(&ruleLedger{Trusted: rules})
			w.mu.Unlock()
		}
	}
	return err
}

// observeLocked takes in the rules of the file (after a settle, the
// ledger's trusted and unconfirmed rules together): one this process had
// not seen is held while one of its calls runs, one the ledger holds is
// held, and one gone from the file is forgotten.
func (w *RuleWatch) observeLocked(l *ruleLedger) {
	inFile := append(slices.Clone(l.Trusted), l.Unconfirmed...)
	for _, r := range inFile {
		if !w.seen[r] {
			w.seen[r] = true
			if w.running > 0 {
				w.held[r] = true
			}
		}
	}
	for _, r := range l.Unconfirmed {
		w.held[r] = true
	}
	for r := range w.seen {
		if !slices.Contains(inFile, r) {
			delete(w.seen, r)
			delete(w.held, r)
		}
	}
}
