package lsp_test

import (
	"fmt"
	"testing"

	"scv/internal/smalldisk"
	"scv/lsp/lsptest"
	"scv/lsp/schema"
	"scv/runtime/config"
)

// TestAFullDiskRefusesChangesAndRecovers fills the real disk under the
// sessions directory ($SCV_HOME/sessions on a small tmpfs). Enqueues and
// edits used to be answered OK, lost after a restart, and the store's
// error stuck after space was freed. Now every change that could not be
// stored is refused with store_failed and not made; once space is back
// the session stores again, and a fresh server loads everything it
// answered, at a seq no lower than any the editor saw.
func TestAFullDiskRefusesChangesAndRecovers(t *testing.T) {
	each(t, func(t *testing.T, env *lsptest.Env) {
		dir := config.SessionsDir(env.Home)
		smalldisk.MountAt(t, dir, 4<<20)
		ed := connect(t, env)
		sid := ed.StartSession("", nil).SessionID
		turn, release := startHeld(t, env, ed, sid)
		first := ed.StartTurn(sid, "first").Entry

		free := smalldisk.Fill(t, dir)
		// The log's last page may hold a few small records still:
		// renames take it until the disk refuses one.
		var err error
		for i := 0; err == nil; i++ {
			if i == 1000 {
				t.Fatal("1000 renames were stored on a full disk")
			}
			err = ed.Call(schema.MethodSessionRename, map[string]any{"sessionId": sid, "title": fmt.Sprintf("title %d", i)}, nil)
		}
		lsptest.ExpectError(t, err, -32000, "store_failed")
		err = ed.Call(schema.MethodTurnStart, map[string]any{"sessionId": sid, "prompt": "lost"}, nil)
		lsptest.ExpectError(t, err, -32000, "store_failed")
		_, err = ed.TryStartSession("", nil)
		lsptest.ExpectError(t, err, -32000, "store_failed")
		err = ed.Call(schema.MethodQueueUpdate, map[string]any{"sessionId": sid, "queueId": first.QueueID, "revision": first.Revision, "prompt": "edited"}, nil)
		lsptest.ExpectError(t, err, -32000, "store_failed")
		if q := queueOf(t, ed, sid); len(q.Entries) != 1 || q.Entries[0].Prompt != "first" || q.Entries[0].Revision != first.Revision {
			t.Fatalf("queue after refusals: %+v", q.Entries)
		}

		free()
		second := ed.StartTurn(sid, "second").Entry
		ed.MustCall(schema.MethodSessionPause, map[string]any{"sessionId": sid, "paused": true}, nil)
		release()
		ed.AwaitTerminal(turn)
		var seen uint64
		for _, n := range ed.Notes("", nil) {
			seen = max(seen, n.Seq)
		}
		if seen == 0 {
			t.Fatal("the editor saw no seq")
		}
		ed.Close()
		if env.ServedByDaemon() {
			return // the daemon holds the session loaded; the others load it afresh
		}
		ed2 := connect(t, env)
		snap, err := ed2.Attach(sid, nil)
		if err != nil {
			t.Fatal(err)
		}
		if q := snap.Queue.Entries; len(q) != 2 || q[0].Prompt != "first" || q[1].QueueID != second.QueueID || snap.Seq < seen {
			t.Fatalf("reloaded: queue %+v, seq %d (the editor saw %d)", q, snap.Seq, seen)
		}
	})
}
