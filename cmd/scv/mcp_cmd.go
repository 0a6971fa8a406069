package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"scv/runtime/session"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"scv/runtime/config"
	"scv/runtime/mcp"
)

// mcpCheckMargin is added to the longest startup_timeout_sec when
// `scv mcp list --check` waits for every server to settle.
const mcpCheckMargin = 5 * time.Second

func runMCP(args []string) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(os.Stderr, "usage: scv mcp list [--check]")
		return 2
	}
	fs := flag.NewFlagSet("scv mcp list", flag.ContinueOnError)
	check := fs.Bool("check", false, "start each enabled server, list its tools, stop it")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	home, err := config.Home()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv mcp: %v\n", err)
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv mcp: %v\n", err)
		return 1
	}
	cfg, src, err := config.Load(config.LoadOptions{Home: home, Cwd: cwd})
	if err != nil {
		fmt.Fprintf(os.Stderr, "scv mcp: %v\n", err)
		return 1
	}
	if len(cfg.MCPServers) == 0 {
		fmt.Printf("no MCP servers configured; add [mcp_servers.NAME] tables to %s\n", src.UserFile)
		return 0
	}
	printMCPServers(os.Stdout, cfg.MCPServers)
	if !*check {
		return 0
	}
	return checkMCPServers(os.Stdout, os.Stderr, cfg, home, cwd)
}

func printMCPServers(w io.Writer, servers map[string]config.MCPServer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tENABLED\tTARGET")
	for _, name := range sortedNames(servers) {
		s := servers[name]
		target := s.URL
		if s.URL == "" {
			target = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		enabled := "yes"
		if !s.Enabled {
			enabled = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, s.Transport(), enabled, target)
	}
	tw.Flush()
}

// checkMCPServers starts every enabled server as a session would, reports
// its state and tools, and stops them all.
func checkMCPServers(stdout, stderr io.Writer, cfg config.Config, home, cwd string) int {
	enabled := map[string]config.MCPServer{}
	longest := 0.0
	for name, s := range cfg.MCPServers {
		if s.Enabled {
			enabled[name] = s
			longest = max(longest, s.StartupTimeoutSec)
		}
	}
	m := mcp.Start(mcp.Options{
		Servers:        enabled,
		Dir:            cwd,
		LogDir:         filepath.Join(home, "logs"),
		MaxOutputBytes: cfg.Tools.MaxOutputBytes,
		// A server checked here sees what it would in a session: no
		// provider key, no secret-looking variable.
		StripEnv: session.ShellEnvFor(cfg, os.Getenv).Filter,
	})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(longest*float64(time.Second))+mcpCheckMargin)
	defer cancel()
	_ = m.Settle(ctx) // a server still starting is reported as such
	fmt.Fprintln(stdout)
	var failing []string
	for _, st := range m.Servers() {
		switch st.State {
		case mcp.StateReady:
			names := make([]string, len(st.Tools))
			for i, t := range st.Tools {
				names[i] = t.Tool
			}
			fmt.Fprintf(stdout, "%s: ready, %d tools: %s\n", st.Name, len(st.Tools), strings.Join(names, ", "))
			if st.Error != "" {
				fmt.Fprintf(stdout, "%s: note: %s\n", st.Name, st.Error)
			}
		default:
			failing = append(failing, st.Name)
			fmt.Fprintf(stdout, "%s: %s: %s\n", st.Name, st.State, st.Error)
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(stderr, "scv mcp list: not working: %s\n", strings.Join(failing, ", "))
		return 1
	}
	return 0
}

func sortedNames(servers map[string]config.MCPServer) []string {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
