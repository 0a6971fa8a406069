package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result is what one call gives the model.
type Result struct {
	// Text is the text content joined, with images and resources described
	// in one line each; valid UTF-8, at most the manager's MaxOutputBytes
	// plus a truncation note.
	Text string
	// IsError is the server's isError: the tool failed, and the model
	// should see that; it is not a failure of the turn.
	IsError   bool
	Truncated bool
}

// resultText renders a call result for the model.
func resultText(res *sdk.CallToolResult, maxBytes int) Result {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, describeResource(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.ToValidUTF8(strings.Join(parts, "\n"), "\uFFFD")
	out := Result{Text: text, IsError: res.IsError}
	if maxBytes > 0 && len(text) > maxBytes {
		out.Text = cutUTF8(text, maxBytes) + fmt.Sprintf("\n[output truncated at %d bytes]", maxBytes)
		out.Truncated = true
	}
	return out
}

func describeResource(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	size := len(r.Text) + len(r.Blob)
	mime := r.MIMEType
	if mime == "" {
		mime = "unknown type"
	}
	return fmt.Sprintf("[resource: %s (%s), %d bytes]", r.URI, mime, size)
}

// cutUTF8 shortens s to at most n bytes without splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
