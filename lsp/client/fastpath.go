package client

import (
	"bytes"

	"scv/lsp/schema"
)

// The scv server writes every notification in one shape:
//
//	{"jsonrpc":"2.0","method":"<plain ASCII>","params":{...}}
//
// with no spaces and the members in that order. The client reads each
// streamed delta, so classifying such a frame must cost little more than
// finding its end. scanServerNotification recognises exactly that shape
// and leaves every other frame to the general scanner.
const (
	notificationOpen   = `{"jsonrpc":"2.0","method":"`
	notificationParams = `","params":`
)

// knownMethods interns the server's notification names, so that a
// recognised frame hands its method over without allocating a string.
var knownMethods = func() map[string]string {
	m := make(map[string]string, len(schema.Notifications)+1)
	for _, name := range schema.Notifications {
		m[name] = name
	}
	m["window/showMessage"] = "window/showMessage"
	return m
}()

// scanServerNotification returns the method and params of body when body
// is a notification in the server's own shape, with ok false otherwise.
// Wherever it says ok it agrees with jsonrpc2.ScanMessageView on the same
// bytes: a notification whose params span is the object it returns (the
// test holds the two together). Like that scanner, it checks only that
// params is a balanced object with well-formed string escapes.
func scanServerNotification(body []byte) (method string, params []byte, ok bool) {
	if !bytes.HasPrefix(body, []byte(notificationOpen)) {
		return "", nil, false
	}
	rest := body[len(notificationOpen):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 {
		return "", nil, false
	}
	name := rest[:end]
	for _, c := range name {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return "", nil, false // escapes or raw bytes: the general path decodes them
		}
	}
	rest = rest[end:]
	if !bytes.HasPrefix(rest, []byte(notificationParams)) {
		return "", nil, false
	}
	params = rest[len(notificationParams):]
	if len(params) < 2 || params[0] != '{' || params[len(params)-1] != '}' {
		return "", nil, false
	}
	params = params[:len(params)-1] // the message's own closing brace
	if objectEnd(params) != len(params) {
		return "", nil, false // params ends early (more members follow) or never
	}
	if known, found := knownMethods[string(name)]; found {
		method = known
	} else {
		method = string(name)
	}
	return method, params, true
}

// objectEnd returns the index just past the object that opens data, or
// -1 if its brackets never balance. Strings are skipped whole; a
// backslash skips the byte after it, as jsonrpc2's scanner does.
func objectEnd(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			n := stringLength(data[i+1:])
			if n < 0 {
				return -1
			}
			i += n + 1 // now on the closing quote
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// stringLength returns how many bytes of s precede the quote that closes
// a string whose opening quote came just before s, or -1 if none does.
func stringLength(s []byte) int {
	// One pass: stop at the first quote or backslash, so a string of many
	// escapes costs O(n), not a search to its closing quote per escape.
	i := 0
	for {
		j := bytes.IndexAny(s[i:], "\"\\")
		if j < 0 {
			return -1
		}
		i += j
		if s[i] == '"' {
			return i
		}
		i += 2 // skip the escaped byte, which may be a quote
		if i > len(s) {
			return -1
		}
	}
}
