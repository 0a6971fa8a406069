//go:build unix

package regfile

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; on a regular file it changes nothing.
const openFlags = syscall.O_NONBLOCK
