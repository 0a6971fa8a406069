// Package bridge holds both sides of scv's shared-daemon socket.
//
// The daemon side (Listen, Listener.Run, RunDaemon) owns one Unix socket
// per user, by default $SCV_HOME/server.sock (SocketPath: --socket, else
// $SCV_SOCKET, else $SCV_HOME/server.sock). An exclusive flock on
// server.lock beside the socket makes it the only daemon for that path; a
// socket file nobody answers on is stale and replaced, while a regular
// file, directory or symbolic link at the path is never removed. The
// directory is created 0700 and the socket is 0600; every peer's uid is
// checked with SO_PEERCRED. A connection must send its first frame within
// HandshakeTimeout; the daemon reads that frame itself (garbage framing is
// closed right there, an oversized first frame is answered with
// frame_too_large and closed) and hands the server a connection that
// replays it. At most MaxConnections are served; the next one receives a
// window/showMessage error naming the limit and is closed. On SIGTERM or
// SIGINT the daemon stops accepting, lets the server cancel running turns,
// half-closes every connection so each one flushes what it was sent
// (bounded by FlushTimeout), then removes socket and lock.
//
// The editor side is `scv lsp`: Dial applies --daemon=auto|never|required
// (--no-daemon and SCV_NO_DAEMON=1 mean never) and Forward relays whole
// frames between the editor's stdio and the daemon with the frame limits of
// the user's config file (the daemon's too); a daemon reply over them
// becomes a response_limit error for the same request. The bridge's
// --model, --provider, --base-url, --approval and --no-tools ride in the
// editor's initialize (initializationOptions.scv.flags) and bind the
// sessions started through it. If the daemon goes away, the editor receives
// a window/showMessage error saying the sessions are on disk and a running
// turn was lost, asking it to restart the server, and the bridge exits
// non-zero; if the editor goes away, the bridge closes its daemon
// connection and the sessions live on in the daemon. Client is the small
// JSON-RPC client behind `scv status`, `scv stop` and `scv attach`.
//
// # Reaching a daemon on another machine over SSH
//
// The socket speaks the same frames end to end, so a forwarded socket works
// unchanged. On the remote host run (or let a bridge start) the daemon:
//
//	remote$ scv daemon --idle-timeout 2h
//
// Locally, forward a local socket path to the remote one. OpenSSH (6.7+)
// forwards Unix sockets with -L local:remote; both paths must be absolute:
//
//	local$ ssh -N -o ExitOnForwardFailure=yes -o StreamLocalBindUnlink=yes \
//	    -L /home/me/.scv/remote.sock:/home/me/.scv/server.sock me@remote
//
// then point the editor's `scv lsp` (and `scv status`, `scv attach`) at it:
//
//	SCV_SOCKET=/home/me/.scv/remote.sock scv lsp --daemon=required
//
// or pass --socket /home/me/.scv/remote.sock. Notes:
//
//   - ssh creates the local socket with your uid, so the bridge's peer check
//     passes; keep it in a directory only you can enter (~/.scv is 0700).
//   - StreamLocalBindUnlink=yes lets ssh replace a socket left by an earlier
//     session; without it a stale local socket makes the forward fail.
//   - The remote daemon's sessions run on the remote host: session cwd and
//     context URIs are remote paths, and tools act on the remote files.
//   - --daemon=required cannot start a remote daemon; start it there (or
//     with `ssh me@remote scv daemon`), then connect.
//   - `scv stop` refuses to signal through a forwarded socket (the peer is
//     the local ssh process, not the daemon); run it on the remote host.
//   - When the ssh connection drops, the bridge reports the lost daemon to
//     the editor and exits non-zero; the sessions keep running remotely and
//     a restarted editor server can attach to them again.
package bridge
