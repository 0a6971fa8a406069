//go:build !linux

package sweep

import "time"

// Bound: see the Linux version; nothing is swept here.
const Bound = 5 * time.Second

// BecomeSubreaper has no equivalent here.
func BecomeSubreaper() {}

// Tree has no process table to walk here: only the process group, which
// the caller kills, is stopped.
func Tree(string, int, int) {}
