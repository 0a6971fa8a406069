package config

import "testing"

func TestProtocolWithDefaultsFillsOnlyUnsetLimits(t *testing.T) {
	got := Protocol{MaxServerFrameBytes: 1024, MaxInflightRequests: -1}.WithDefaults()
	d := Defaults().Protocol
	want := Protocol{
		MaxClientFrameBytes:     d.MaxClientFrameBytes,
		MaxServerFrameBytes:     1024,
		OutboundQueueBytes:      d.OutboundQueueBytes,
		MaxInflightRequests:     d.MaxInflightRequests,
		MaxProcessOutboundBytes: d.MaxProcessOutboundBytes,
	}
	if got != want {
		t.Fatalf("WithDefaults = %+v, want %+v", got, want)
	}
}
