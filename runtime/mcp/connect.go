package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientName is how scv introduces itself in the handshake.
const clientName = "scv"

// conn is one live connection to a server.
type conn struct {
	cs    *sdk.ClientSession
	proc  *process     // stdio only
	bound *answerBound // set once connected
	// cancelHTTP ends the HTTP requests of the connection (nil for stdio):
	// the SDK sends some, such as answers, under no context that ends.
	cancelHTTP context.CancelFunc
	log        *rotatingLog // stdio only, nil when LogDir is empty
	logPath    string
	once       sync.Once
}

// close ends the connection: a stdio server's stdin is closed, and its
// group killed after grace. Safe to call more than once.
func (c *conn) close(grace time.Duration) {
	c.once.Do(func() {
		if c.cancelHTTP != nil {
			c.cancelHTTP()
		}
		if c.proc != nil {
			c.proc.stop(grace)
		}
		if c.cs != nil {
			_ = c.cs.Close()
		}
		if c.log != nil {
			_ = c.log.Close()
		}
	})
}

// endReason says why a connection that was ready ended.
func (c *conn) endReason(waitErr error) string {
	if c.proc != nil {
		<-c.proc.exited
		msg := "the server " + c.proc.exitReason()
		if err := c.bound.fault(); err != nil {
			msg = err.Error() + "; the server was stopped"
		}
		if c.logPath != "" {
			msg += " (its stderr is in " + c.logPath + ")"
		}
		return msg
	}
	if err := c.bound.fault(); err != nil {
		return err.Error() + "; the connection was closed"
	}
	if waitErr != nil {
		return fmt.Sprintf("the connection ended: %v", waitErr)
	}
	return "the connection ended"
}

// connect starts the server, completes the handshake and lists its tools,
// all within startup_timeout_sec.
func (s *server) connect() (*conn, *catalog, error) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.startupTimeout())
	defer cancel()
	c := &conn{}
	var transport sdk.Transport
	if s.cfg.URL != "" {
		t, err := s.httpTransport(c)
		if err != nil {
			return nil, nil, err
		}
		transport = t
	} else {
		t, err := s.stdioTransport(c)
		if err != nil {
			return nil, nil, err
		}
		transport = t
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, &sdk.ClientOptions{
		// No roots, sampling or elicitation: scv offers servers nothing
		// but tool calls.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.toolsChanged()
		},
	})
	transport = boundedTransport{Transport: transport, bound: &c.bound, stop: c.cancelHTTP}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		c.close(0)
		return nil, nil, s.startError(ctx, c, "handshake", err)
	}
	c.cs = cs
	cat := newCatalog(s.name, s.cfg)
	if err := listTools(ctx, cs, cat); err != nil {
		c.close(0)
		return nil, nil, s.startError(ctx, c, "tool list", err)
	}
	return c, cat, nil
}

// startError explains a failed start: a timeout names the key to raise, a
// stdio server's exit and its log are named.
func (s *server) startError(ctx context.Context, c *conn, step string, err error) error {
	var msg string
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("no %s within startup_timeout_sec (%gs)", step, s.cfg.StartupTimeoutSec)
	default:
		msg = fmt.Sprintf("%s failed: %v", step, err)
	}
	if fault := c.bound.fault(); fault != nil {
		msg = fmt.Sprintf("%s failed: %v", step, fault)
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
			msg += "; the server " + c.proc.exitReason()
		default:
		}
		if c.logPath != "" {
			msg += " (its stderr is in " + c.logPath + ")"
		}
	}
	return errors.New(msg)
}

func (s *server) stdioTransport(c *conn) (sdk.Transport, error) {
	opts := s.m.opts
	var log io.Writer = io.Discard
	if opts.LogDir != "" {
		c.logPath = LogPath(opts.LogDir, s.name)
		l, err := openLog(c.logPath, opts.MaxLogBytes)
		if err != nil {
			return nil, fmt.Errorf("stderr log %s: %w", c.logPath, err)
		}
		c.log, log = l, l
		fmt.Fprintf(l, "--- scv: starting %s: %s %s at %s ---\n", s.name, s.cfg.Command,
			strings.Join(s.cfg.Args, " "), time.Now().Format(time.RFC3339))
	}
	env := opts.Env
	if opts.StripEnv != nil {
		env = opts.StripEnv(append([]string(nil), env...))
	}
	dir := s.cfg.Cwd
	if dir == "" {
		dir = opts.Dir
	}
	p, err := startProcess(s.cfg.Command, s.cfg.Args, dir, serverEnv(env, s.cfg.Env), log)
	if err != nil {
		if c.log != nil {
			c.log.Close()
		}
		return nil, fmt.Errorf("start %s: %w", s.cfg.Command, errorText(err))
	}
	c.proc = p
	return stdioTransport{newStdioConn(p.stdout, p.stdin)}, nil
}

// errorText drops the program path an exec error repeats.
func errorText(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *server) httpTransport(c *conn) (sdk.Transport, error) {
	rt := &headerTransport{base: boundedBodies{http.DefaultTransport}, headers: s.cfg.HTTPHeaders}
	if name := s.cfg.BearerTokenEnvVar; name != "" {
		token := lookupEnv(s.m.opts.Env, name)
		if token == "" {
			return nil, fmt.Errorf("bearer_token_env_var names %s, which is not set", name)
		}
		rt.bearer = token
	}
	rt.conn, c.cancelHTTP = context.WithCancel(s.m.ctx)
	return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: &http.Client{Transport: rt},
		MaxEventSize: MaxServerMessageBytes}, nil
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// headerTransport adds the configured headers and the bearer token.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	bearer  string
	conn    context.Context // ends with the connection, and every request with it
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.conn, cancel)
	done := func() { stop(); cancel() }
	req = req.Clone(ctx)
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if t.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+t.bearer)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		done()
		return nil, err
	}
	resp.Body = &bodyDone{ReadCloser: resp.Body, done: done}
	return resp, nil
}

// bodyDone releases a request's context once its body is closed.
type bodyDone struct {
	io.ReadCloser
	done func()
	once sync.Once
}

func (b *bodyDone) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}
