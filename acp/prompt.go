package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"scv/acp/schema"
	"scv/runtime/session"
)

// handlePrompt starts a turn, or queues the prompt behind the running
// one; either way the answer comes when that prompt's own turn ends.
func handlePrompt(d *Door, id, params json.RawMessage) (any, bool, error) {
	var p schema.PromptParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	st, err := d.known(p.SessionID)
	if err != nil {
		return nil, false, err
	}
	text, items, err := promptOf(p.Prompt)
	if err != nil {
		return nil, false, err
	}
	// Held until the waiter is filed: the turn may end before StartTurn
	// returns, and its end must find who to answer.
	d.hold()
	defer d.release()
	res, err := d.be.StartTurn(d.ctx, p.SessionID, text, items, "acp:"+string(id))
	if err != nil {
		return nil, false, err
	}
	w := &waiter{id: append(json.RawMessage(nil), id...), sid: p.SessionID}
	d.mu.Lock()
	defer d.mu.Unlock()
	if res.Status == "queued" && res.Entry != nil {
		d.byQueue[res.Entry.QueueID] = w
	} else {
		d.byTurn[res.TurnID] = w
		st.running = res.TurnID
	}
	return nil, true, nil
}

// promptOf splits ACP content blocks into the prompt text and the context
// attachments: a resource_link is read from the workspace, an embedded
// text resource is used as the client sent it (its unsaved buffer).
func promptOf(blocks []schema.ContentBlock) (string, []session.ContextItem, error) {
	var text []string
	var items []session.ContextItem
	for i, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "resource_link":
			if b.URI == "" {
				return "", nil, invalidParams("params.prompt[%d].uri is required", i)
			}
			items = append(items, session.ContextItem{URI: b.URI})
		case "resource":
			if b.Resource == nil || b.Resource.URI == "" {
				return "", nil, invalidParams("params.prompt[%d].resource.uri is required", i)
			}
			if b.Resource.Text == nil {
				return "", nil, invalidParams("params.prompt[%d]: only text resources are supported, not blobs", i)
			}
			items = append(items, session.ContextItem{URI: b.Resource.URI, Text: b.Resource.Text})
		case "image", "audio":
			return "", nil, invalidParams("params.prompt[%d]: %s content is not supported (promptCapabilities)", i, b.Type)
		default:
			return "", nil, invalidParams("params.prompt[%d].type %q is not a content block type", i, b.Type)
		}
	}
	if len(text) == 0 && len(items) > 0 {
		text = append(text, fmt.Sprintf("See the %d attached file(s).", len(items)))
	}
	return strings.Join(text, "\n\n"), items, nil
}
