package session

import "scv/runtime/tools"

// SetFileAccess sends the file tools of this session's later tool calls
// through fa (nil: back to the disk). A front door whose client holds the
// files (an ACP editor with unsaved buffers) gives it; workspace
// confinement and approvals still come first.
func (s *Session) SetFileAccess(fa tools.FileAccess) {
	s.mu.Lock()
	s.files = fa
	s.mu.Unlock()
}

func (s *Session) fileAccess() tools.FileAccess {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files
}

// fileAccessFor is the file access of t's tools: its window's, else the
// session's.
func (s *Session) fileAccessFor(t *turn) tools.FileAccess {
	if t.files != nil {
		return t.files
	}
	return s.fileAccess()
}
