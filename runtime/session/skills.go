package session

import "scv/runtime/prompt"

// Skills lists the skills the session's system prompt offers, sorted by
// name (empty without tools or with skills.enabled = false); a front door
// shows them as commands. The slice is a copy.
func (s *Session) Skills() []prompt.Skill {
	return append([]prompt.Skill(nil), s.skills...)
}
