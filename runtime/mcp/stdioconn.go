package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxServerMessageBytes bounds one message a stdio server sends (one
// line); a longer one ends the connection, so no single message, a tool
// list page or a call's result, can hold more of scv's memory.
const MaxServerMessageBytes = 16 << 20

// stdioTransport speaks newline-delimited JSON-RPC over a server's stdin
// and stdout, as the SDK's IOTransport does, but each message is read into
// a buffer of its own, dropped once the message is decoded: the SDK's
// decoder keeps a buffer as large as the largest message for the life of
// the connection, so one big tool list would stay held by every session.
type stdioTransport struct{ conn *stdioConn }

func newStdioConn(stdout io.ReadCloser, stdin *os.File) *stdioConn {
	return &stdioConn{in: bufio.NewReader(stdout), stdout: stdout, stdin: stdin}
}

func (t stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	return t.conn, nil
}

// errMessageTooLarge ends a connection whose server sent a line over
// MaxServerMessageBytes.
var errMessageTooLarge = fmt.Errorf("the server sent a message over MaxServerMessageBytes (%d bytes)", MaxServerMessageBytes)

type stdioConn struct {
	in     *bufio.Reader
	stdout io.ReadCloser
	stdin  *os.File // a pipe, so a write can be interrupted by a deadline

	writeMu   sync.Mutex
	broken    error // set once a write was cut off mid-message
	closeOnce sync.Once
}

// Read returns the next message. Close unblocks it by closing stdout.
func (c *stdioConn) Read(context.Context) (jsonrpc.Message, error) {
	for {
		line, err := readLine(c.in, MaxServerMessageBytes)
		if err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		return jsonrpc.DecodeMessage(line)
	}
}

// readLine reads one line of at most limit bytes into a new slice.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, errMessageTooLarge
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// Write sends one message, within ctx: a server that does not read its
// stdin would otherwise block the write, and the call or turn behind it,
// for ever. A write ctx ends before any byte went out leaves the stream
// whole; one cut off mid-message ends the connection, since the server
// can no longer tell where the next message starts.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = c.stdin.SetWriteDeadline(time.Now())
		close(interrupted)
	})
	n, err := c.stdin.Write(append(data, '\n'))
	if !stop() {
		<-interrupted
		_ = c.stdin.SetWriteDeadline(time.Time{})
	}
	if err == nil || ctx.Err() == nil {
		return err
	}
	if n > 0 {
		c.broken = fmt.Errorf("%w: the server read only %d of its %d bytes before the call ended", errCutOff, n, len(data)+1)
		return c.broken
	}
	return ctx.Err()
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		_ = c.stdout.Close()
	})
	return nil
}

func (*stdioConn) SessionID() string { return "" }
