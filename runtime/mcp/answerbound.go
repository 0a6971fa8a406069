package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxUnansweredServerRequests bounds the requests (pings and the like) a
// server has sent that scv has not answered yet, over either transport:
// the SDK queues them without bound while an answer waits to be written,
// so a server that floods requests and takes none of the answers ends its
// connection instead of growing scv.
const MaxUnansweredServerRequests = 256

// errTooManyRequests ends a connection whose server sent more than
// MaxUnansweredServerRequests requests scv had not answered.
var errTooManyRequests = fmt.Errorf("the server sent more than MaxUnansweredServerRequests (%d) requests scv had not answered yet", MaxUnansweredServerRequests)

// errCutOff marks a write abandoned mid-message: the stream is lost.
var errCutOff = errors.New("a message to the server was cut off")

// boundedTransport wraps a server's transport in an answerBound, kept in
// bound for the connection's end reason.
type boundedTransport struct {
	sdk.Transport
	bound **answerBound
	// stop ends what the connection's Close alone does not: an HTTP
	// request scv's answer is waiting on.
	stop func()
}

func (t boundedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	b := &answerBound{Connection: c, stop: t.stop}
	*t.bound = b
	return b, nil
}

// answerBound counts the server's requests against scv's answers and
// ends the connection when the server breaks a bound, remembering why.
type answerBound struct {
	sdk.Connection
	stop func()

	mu         sync.Mutex
	unanswered int   // requests read that no written answer answered yet
	cause      error // why scv ended the connection, if it did
}

func (b *answerBound) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := b.Connection.Read(ctx)
	if errors.Is(err, errMessageTooLarge) {
		return nil, b.end(err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		b.mu.Lock()
		b.unanswered++
		over := b.unanswered > MaxUnansweredServerRequests
		b.mu.Unlock()
		if over {
			return nil, b.end(errTooManyRequests)
		}
	}
	return msg, err
}

func (b *answerBound) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := b.Connection.Write(ctx, msg)
	if _, answer := msg.(*jsonrpc.Response); answer && err == nil {
		// Counted once written: an answer still waiting holds its request
		// (and the goroutine writing it).
		b.mu.Lock()
		b.unanswered--
		b.mu.Unlock()
	}
	if errors.Is(err, errCutOff) {
		b.end(err)
	}
	return err
}

// end records why scv ends the connection (the first reason only) and
// closes it: a write blocked on the server, an answer to one of its
// requests, would otherwise hold the connection open for ever.
func (b *answerBound) end(err error) error {
	b.mu.Lock()
	if b.cause == nil {
		b.cause = err
	}
	b.mu.Unlock()
	if b.stop != nil {
		b.stop()
	}
	_ = b.Connection.Close()
	return err
}

// fault is why scv ended the connection, or nil; nil-safe.
func (b *answerBound) fault() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cause
}
