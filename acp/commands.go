package acp

import (
	"context"

	"scv/acp/schema"
)

// commandHint is the input hint of a skill's command: what follows it is
// passed to the model with the prompt.
const commandHint = "what to do with this skill (optional)"

// sendCommands tells the client the session's skills, as slash commands,
// when it has any (available_commands_update).
func (d *Door) sendCommands(sid string, cmds []schema.AvailableCommand) {
	if len(cmds) == 0 {
		return
	}
	d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
		Update: schema.AvailableCommandsUpdate{SessionUpdate: schema.UpdateAvailableCommands, AvailableCommands: cmds}})
}

// commands are a session's skills as slash commands.
func (d *Door) commands(ctx context.Context, sid string) []schema.AvailableCommand {
	var out []schema.AvailableCommand
	for _, s := range d.be.Skills(ctx, sid) {
		out = append(out, schema.AvailableCommand{Name: s.Name, Description: s.Description, Input: &schema.AvailableCommandInput{Hint: commandHint}})
	}
	return out
}
