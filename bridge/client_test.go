package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestClientCallsAndErrors(t *testing.T) {
	d := startDaemon(t, nil)
	c := dialClient(t, d.path, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()

	err := c.Call(ctx, "test/fail", nil, nil)
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.DataCode() != "session_not_found" {
		t.Fatalf("error answer = %v", err)
	}
	if !strings.Contains(err.Error(), "test/fail") {
		t.Fatalf("error %q does not name the method", err)
	}

	st, err := Status(ctx, c)
	if err != nil || st.Mode != "daemon" || st.UptimeMs != 61000 || st.Clients != 2 {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	ss, err := Sessions(ctx, c)
	if err != nil || len(ss) != 1 || ss[0].SessionID != "s1" || ss[0].Queued != 2 {
		t.Fatalf("Sessions = %+v, %v", ss, err)
	}
}

func TestClientCancelSendsCancelRequest(t *testing.T) {
	d := startDaemon(t, nil)
	c := dialClient(t, d.path, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "test/never-answers", nil, nil) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call = %v", err)
	}
	// The cancellation reaches the server before the next answer does.
	call(t, c, "test/echo", nil)
	if got := d.stub.cancelsSeen(); len(got) != 1 || !strings.Contains(string(got[0]), `"id":2`) {
		t.Fatalf("$/cancelRequest seen = %s", got)
	}
}

func TestClientAnswersServerRequests(t *testing.T) {
	d := startDaemon(t, nil)
	c := dialClient(t, d.path, nil)
	res := call(t, c, "test/calls-back", nil)
	var reply struct {
		Error *RPCError `json:"error"`
	}
	if err := json.Unmarshal(res, &reply); err != nil || reply.Error == nil || reply.Error.Code != codeMethodNotFound {
		t.Fatalf("client's answer to a server request = %s", res)
	}
}

func TestClientNotificationsInOrderAndEnd(t *testing.T) {
	d := startDaemon(t, nil)
	got := make(chan string, 16)
	c := dialClient(t, d.path, func(method string, params json.RawMessage) { got <- method + string(params) })
	for i := range 3 {
		call(t, c, "test/notify", map[string]any{"n": i})
	}
	for i := range 3 {
		if m := <-got; m != `test/event{"n":`+string(rune('0'+i))+`}` {
			t.Fatalf("notification %d = %s", i, m)
		}
	}
	d.stop(t)
	select {
	case <-c.Done():
	case <-time.After(waitBound):
		t.Fatal("client did not notice the daemon leaving")
	}
	if err := c.Call(context.Background(), "test/echo", nil, nil); !errors.Is(err, ErrConnectionClosed) {
		t.Fatalf("call after the end = %v", err)
	}
}
