//go:build !unix

package regfile

// openFlags: elsewhere there are no FIFOs to wait on.
const openFlags = 0
