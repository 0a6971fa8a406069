package main

import (
	"flag"
	"fmt"
	"net"
	"os"

	"scv/bridge"
	"scv/lsp"
	"scv/runtime/config"
)

// doorFlags are the flags every stdio front door (scv lsp, scv acp) takes:
// the session flags and how to reach the shared daemon.
type doorFlags struct {
	session    sessionFlags
	daemonMode *string
	noDaemon   *bool
	socket     *string
}

func (d *doorFlags) register(fs *flag.FlagSet) {
	d.session.register(fs)
	d.daemonMode = fs.String("daemon", "auto", "auto: use a running daemon; never: serve in-process; required: start the daemon if needed")
	d.noDaemon = fs.Bool("no-daemon", false, "same as --daemon=never")
	d.socket = fs.String("socket", "", "daemon socket (default $SCV_SOCKET or $SCV_HOME/server.sock)")
}

// door is what a stdio front door serves with: the in-process server's
// options and config, and the daemon connection when a daemon serves.
type door struct {
	opts   lsp.Options
	cfg    config.Config
	daemon *net.UnixConn // nil: serve in-process
}

// openDoor resolves the daemon mode, loads the configuration (whether or
// not a daemon serves: it checks the flags at startup and gives a daemon
// client the limits the daemon reads from the same file) and dials the
// daemon, starting it when the mode requires one. On failure it has told
// the user, prefixed by name, and returns the exit code.
func openDoor(name string, d *doorFlags) (door, int) {
	opts, cfg, err := serverOptions(lsp.ModeStdio, d.session.overrides())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return door{}, 1
	}
	daemon, code := dialDoorDaemon(name, d)
	if code != 0 {
		return door{}, code
	}
	return door{opts: opts, cfg: cfg, daemon: daemon}, 0
}

// dialDoorDaemon resolves the daemon mode and dials the daemon, starting it
// when the mode requires one; nil means serve in-process. It reads no
// configuration: a daemon serves with its own. On failure it has told the
// user, prefixed by name, and returns the exit code.
func dialDoorDaemon(name string, d *doorFlags) (*net.UnixConn, int) {
	fail := func(err error, code int) (*net.UnixConn, int) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return nil, code
	}
	mode, err := bridge.ResolveMode(*d.daemonMode, *d.noDaemon)
	if err != nil {
		return fail(err, 2)
	}
	socket, err := bridge.SocketPath(*d.socket)
	if err != nil {
		return fail(err, 1)
	}
	daemon, err := bridge.Dial(mode, socket, func() error {
		logPath, err := bridge.LogPath()
		if err != nil {
			return err
		}
		return bridge.StartDaemon(socket, logPath)
	})
	if err != nil {
		return fail(err, 1)
	}
	return daemon, 0
}
