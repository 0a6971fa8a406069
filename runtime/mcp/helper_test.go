package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"scv/runtime/config"
)

// The test binary is also the MCP server the tests start: with
// helperModeEnv set, TestMain runs a server of that kind instead of the
// tests (the re-exec pattern, so no separate build is needed).
const helperModeEnv = "SCV_MCPTEST_MODE"

// The "named" mode's tool name and the text its tool answers.
const (
	namedToolEnv  = "SCV_MCPTEST_TOOL"
	namedLabelEnv = "SCV_MCPTEST_LABEL"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperModeEnv); mode != "" {
		runHelper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperServer is the configuration that starts the test binary as a
// server of the given mode. token marks the process (and its children) in
// the process table.
func helperServer(t testing.TB, mode string) (config.MCPServer, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("scv-mcptest-%d-%d", os.Getpid(), time.Now().UnixNano())
	s := config.NewMCPServer()
	s.Command = exe
	s.Args = []string{"-test.run=^$", token}
	s.Env = map[string]string{helperModeEnv: mode}
	return s, token
}

// processesWith lists the pids whose command line holds token.
func processesWith(t testing.TB, token string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie is gone, only not yet reaped by its parent
		}
		if strings.Contains(string(cmdline), token) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func objectSchemaOf(props string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// runHelper serves one kind of test server on stdin and stdout.
func runHelper(mode string) {
	ctx := context.Background()
	srv := sdk.NewServer(&sdk.Implementation{Name: "scv-test-" + mode, Version: "1"}, nil)
	var hangCancelled = make(chan struct{})
	var once sync.Once
	switch mode {
	case "garbage":
		fmt.Println("this is not JSON-RPC")
		fmt.Println("{\"neither\": is this")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "sleeper":
		select {} // until its group is killed
	case "raw":
		runRawServer()
		return
	case "setsid":
		// A grandchild that leaves the server's process group and session,
		// as a daemonising server's does; it must not outlive the server.
		child := exec.Command(os.Args[0], os.Args[1:]...)
		child.Env = append(os.Environ(), helperModeEnv+"=sleeper")
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start child:", err)
			os.Exit(2)
		}
		srv.AddTool(&sdk.Tool{Name: "echo", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ok"), nil })
	case "named":
		// One tool named by namedToolEnv, answering with namedLabelEnv: a
		// test sees which server a call reached.
		label := os.Getenv(namedLabelEnv)
		srv.AddTool(&sdk.Tool{Name: os.Getenv(namedToolEnv), InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text(label), nil })
	case "many":
		for i := range 500 {
			srv.AddTool(&sdk.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: "one of many", InputSchema: objectSchemaOf("")},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ok"), nil })
		}
	case "basic":
		// A child in the server's process group, which must not outlive it.
		child := exec.Command(os.Args[0], os.Args[1:]...)
		child.Env = append(os.Environ(), helperModeEnv+"=sleeper")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start child:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "helper basic started")
		srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes its text.", InputSchema: objectSchemaOf(`"text":{"type":"string"}`)},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var a struct{ Text string }
				_ = json.Unmarshal(req.Params.Arguments, &a)
				return text(a.Text), nil
			})
		srv.AddTool(&sdk.Tool{Name: "fail", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				r := text("it went wrong")
				r.IsError = true
				return r, nil
			})
		srv.AddTool(&sdk.Tool{Name: "big", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text(strings.Repeat("é", 5000)), nil
			})
		srv.AddTool(&sdk.Tool{Name: "mixed", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{
					&sdk.TextContent{Text: "see:"},
					&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
					&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///x", MIMEType: "text/plain", Text: "abc"}},
				}}, nil
			})
		srv.AddTool(&sdk.Tool{Name: "hang", InputSchema: objectSchemaOf("")},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				<-ctx.Done()
				once.Do(func() { close(hangCancelled) })
				return nil, ctx.Err()
			})
		srv.AddTool(&sdk.Tool{Name: "was_cancelled", InputSchema: objectSchemaOf("")},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-hangCancelled:
					return text("yes"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
		srv.AddTool(&sdk.Tool{Name: "crash", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				os.Exit(3)
				return nil, nil
			})
		srv.AddTool(&sdk.Tool{Name: "add_tool", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				srv.AddTool(&sdk.Tool{Name: "added", InputSchema: objectSchemaOf("")},
					func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("new"), nil })
				return text("added"), nil
			})
		srv.AddTool(&sdk.Tool{Name: "bad_schema", InputSchema: json.RawMessage(`{"type":"object","properties":"nope"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("never"), nil })
		srv.AddTool(&sdk.Tool{Name: "env", InputSchema: objectSchemaOf("")},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text(strings.Join(os.Environ(), "\n")), nil
			})
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		os.Exit(2)
	}
	if err := srv.Run(ctx, &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
	}
}
