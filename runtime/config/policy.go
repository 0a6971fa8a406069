package config

// Gate is what an approval policy does with one tool call, ordered from
// the loosest to the strictest.
type Gate int

const (
	GateRun  Gate = iota // the call runs without asking
	GateAsk              // the user is asked first
	GateDeny             // the call is refused without asking
)

// PolicyGate applies the approval table (docs/protocol.md) to a call of a
// read-only tool or of a risky one. An unknown policy acts as on-risk;
// validation refuses it before any session uses it.
func PolicyGate(policy string, readOnly bool) Gate {
	switch policy {
	case PolicyAuto:
		return GateRun
	case PolicyAlways:
		return GateAsk
	case PolicyNever:
		if readOnly {
			return GateRun
		}
		return GateDeny
	default: // on-risk
		if readOnly {
			return GateRun
		}
		return GateAsk
	}
}

// AtLeastAsStrict reports whether policy p gates every call at least as
// strictly as policy q does. The order is partial: always asks before a
// read-only tool where never runs it, and never refuses a risky tool where
// always asks, so neither is as strict as the other.
func AtLeastAsStrict(p, q string) bool {
	for _, readOnly := range []bool{true, false} {
		if PolicyGate(p, readOnly) < PolicyGate(q, readOnly) {
			return false
		}
	}
	return true
}
