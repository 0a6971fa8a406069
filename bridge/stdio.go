package bridge

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// PollableFile returns an *os.File for descriptor fd that Go's poller
// manages when fd is a pipe, socket or terminal, so that read and write
// deadlines work on it and Forward can stop a blocked read. restore puts the
// descriptor back in blocking mode; call it before exiting, because the mode
// is shared with whoever else holds the descriptor (a shell's terminal).
// For other descriptors (regular files, /dev/null) the plain file is
// returned: reads on those do not block. Keep f reachable while fd is in
// use: closing f (or its finalizer) closes fd.
func PollableFile(fd int, name string) (f *os.File, restore func(), err error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, fmt.Errorf("stat %s: %w", name, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK, unix.S_IFCHR:
	default:
		return os.NewFile(uintptr(fd), name), func() {}, nil
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("inspect %s: %w", name, err)
	}
	wasNonblocking := flags&unix.O_NONBLOCK != 0
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, nil, fmt.Errorf("make %s non-blocking: %w", name, err)
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	f = os.NewFile(uintptr(fd), name)
	restore = func() {
		if !wasNonblocking {
			unix.SetNonblock(fd, false)
		}
	}
	return f, restore, nil
}

// ForwardStdio forwards this process's stdin and stdout to daemon (see
// Forward), with both made pollable for the duration so that a lost daemon
// never leaves the bridge blocked on the editor.
func ForwardStdio(ctx context.Context, daemon net.Conn, opts ForwardOptions) error {
	in, restoreIn, err := PollableFile(0, "/dev/stdin")
	if err != nil {
		return err
	}
	defer restoreIn()
	out, restoreOut, err := PollableFile(1, "/dev/stdout")
	if err != nil {
		return err
	}
	defer restoreOut()
	err = Forward(ctx, in, out, daemon, opts)
	// Dropping these files would let a finalizer close descriptors 0 and 1.
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	return err
}
