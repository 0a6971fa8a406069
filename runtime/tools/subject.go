package tools

import "encoding/json"

// Subject is what a standing approval rule ([approvals] allow) is matched
// against: the command a shell call runs, or the file a write or edit
// changes, relative to the workspace with forward slashes and its
// symlinks resolved (a link inside an allowed directory pointing elsewhere
// is named by where it leads). The zero Subject matches no rule.
type Subject struct {
	Command string
	Path    string
}

// Subjected is a tool whose calls standing approval rules may cover.
type Subjected interface {
	Subject(args json.RawMessage) Subject
}

func (t *shellTool) Subject(args json.RawMessage) Subject {
	var a shellArgs
	if t.decode(args, &a) != nil {
		return Subject{}
	}
	return Subject{Command: a.Command}
}

func (t *writeFileTool) Subject(args json.RawMessage) Subject {
	var a writeFileArgs
	if t.decode(args, &a) != nil {
		return Subject{}
	}
	return t.pathSubject(a.Path)
}

func (t *editFileTool) Subject(args json.RawMessage) Subject {
	var a editFileArgs
	if t.decode(args, &a) != nil {
		return Subject{}
	}
	return t.pathSubject(a.Path)
}

func (t workspaceTool) pathSubject(path string) Subject {
	real, err := t.ws.Resolve(path)
	if err != nil {
		return Subject{}
	}
	rel := t.ws.Rel(real)
	if rel == "." {
		return Subject{}
	}
	return Subject{Path: rel}
}
