// Package procfs reads the process table, so that what scv starts (shell
// commands, MCP servers) can be found and confirmed gone after it kills
// them: a process group or a parent link is only visible there.
package procfs

// Proc is what scv reads of one process in /proc/<pid>/stat.
type Proc struct {
	PID, PPID, Pgrp int
	// Comm is the command name (at most 15 bytes, as the kernel keeps it).
	Comm string
	// Zombie: the process has exited and only waits to be reaped.
	Zombie bool
	// Start is when the process started, in clock ticks since boot: with
	// the pid it names one process, even after its pid is reused.
	Start uint64
}
