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

// TestAReservationBeyondMaxSeqIsIgnored: a stored reservation of 2^64-1
// (seqReserve or seq.reserve) was resumed from, and the session's next
// seq wrapped to 0. A reservation beyond store.MaxSeq is a problem of
// the file: it is skipped, and seq resumes from what else is stored.
func TestAReservationBeyondMaxSeqIsIgnored(t *testing.T) {
	recs := []store.Record{
		{Seq: 1, Type: recordSeqReserve, Data: []byte(`{"upTo":4096}`)},
		{Seq: 2, Type: recordSeqReserve, Data: []byte(`{"upTo":18446744073709551615}`)},
		{Seq: 3, Type: "session.renamed", Data: []byte(`{"title":"t","seqReserve":18446744073709551615}`)},
	}
	r := rebuild(recs)
	if r.seq != 4096 || r.reserved != 4096 || len(r.problems) != 2 || r.title != "t" {
		t.Fatalf("resumed at seq %d (reserved %d), title %q, problems %v; want 4096 and two problems", r.seq, r.reserved, r.title, r.problems)
	}
}
