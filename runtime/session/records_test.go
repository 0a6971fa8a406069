package session

import (
	"encoding/json"
	"reflect"
	"testing"

	"scv/runtime/provider"
	"scv/runtime/store"
)

// TestRecordsDecodeToWhatWasStored: every stored event type, with and
// without the extras a record carries, reads back as the event and the
// extras that were written (the one-pass decoder joins both).
func TestRecordsDecodeToWhatWasStored(t *testing.T) {
	x := recordExtras{
		History:     []provider.Message{{Role: provider.RoleUser, Content: "hi \u00e9 \"quoted\"\n"}},
		Attachments: &storedAttachments{Text: "ctx", Context: []ContextRef{{URI: "file:///a.go"}}},
		SeqReserve:  4096,
		Reasoning:   []storedReasoning{{TurnID: "t1", Content: "hmm \"quoted\"", Seq: 1}},
	}
	for name, k := range recordDecoders {
		var typ reflect.Type
		for t, kk := range recordKinds {
			if kk.name == name {
				typ = t
			}
		}
		p := reflect.New(typ).Elem()
		if f := p.FieldByName("TurnID"); f.IsValid() {
			f.SetString("t1")
		}
		payload := p.Interface().(Payload)
		data, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		for _, extras := range []recordExtras{{}, x} {
			rec, err := recordData(data, extras)
			if err != nil {
				t.Fatal(err)
			}
			d := decodeRecord(store.Record{Seq: 1, Type: k.name, Data: rec})
			if d.err != nil {
				t.Fatalf("%s: %v", name, d.err)
			}
			want := payload
			if q, ok := want.(QueueEnqueued); ok && extras.Attachments != nil {
				q.Entry.attachments = resolved{text: "ctx", refs: extras.Attachments.Context}
				want = q
			}
			if !reflect.DeepEqual(d.payload, want) || !reflect.DeepEqual(d.extras, extras) {
				t.Fatalf("%s read back as %#v with %#v, want %#v with %#v", name, d.payload, d.extras, want, extras)
			}
		}
	}
	if d := decodeRecord(store.Record{Seq: 2, Type: "turn.started", Data: []byte(`{"turnId":1}`)}); d.err == nil {
		t.Fatal("a payload of the wrong shape decoded without an error")
	}
}
