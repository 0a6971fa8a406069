package acp

import (
	"encoding/json"

	"scv/acp/schema"
	"scv/runtime/session"
)

// Config option ids of a session.
const (
	optionMode  = "mode"
	optionModel = "model"
)

// modes are the approval policies under names a person understands, in
// the order a client lists them.
var modes = []schema.Mode{
	{ID: session.PolicyOnRisk, Name: "Ask before risky tools", Description: "Reads and searches run; edits and commands wait for your approval."},
	{ID: session.PolicyAlways, Name: "Ask always", Description: "Every tool call waits for your approval."},
	{ID: session.PolicyAuto, Name: "Never ask", Description: "Every tool call runs without asking."},
	{ID: session.PolicyNever, Name: "Read only", Description: "Reads and searches run; edits and commands are refused."},
}

// setup is the modes and config options of a session as this door shows
// them. A backend that cannot tell the policy gets neither modes nor a
// mode option, rather than a guess.
func (d *Door) setup(sid string) schema.SessionSetup {
	var out schema.SessionSetup
	out.ConfigOptions = d.configOptions(sid)
	if policy, ok := d.be.Policy(d.ctx, sid); ok {
		out.Modes = &schema.ModeState{CurrentModeID: policy, AvailableModes: modes}
	}
	return out
}

func (d *Door) configOptions(sid string) []schema.ConfigOption {
	opts := []schema.ConfigOption{}
	if policy, ok := d.be.Policy(d.ctx, sid); ok {
		mode := schema.ConfigOption{ID: optionMode, Name: "Approval", Category: "mode", Type: "select", CurrentValue: policy}
		for _, m := range modes {
			mode.Options = append(mode.Options, schema.SelectOption{Value: m.ID, Name: m.Name, Description: m.Description})
		}
		opts = append(opts, mode)
	}
	d.mu.Lock()
	model := ""
	if st := d.sessions[sid]; st != nil {
		model = st.model
	}
	d.mu.Unlock()
	if model != "" {
		// The session's model is fixed when it starts; it is listed so a
		// client shows it.
		opts = append(opts, schema.ConfigOption{ID: optionModel, Name: "Model", Category: "model", Type: "select",
			CurrentValue: model, Options: []schema.SelectOption{{Value: model, Name: model}}})
	}
	return opts
}

func handleSetMode(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SetModeParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if err := d.setPolicy(p.SessionID, p.ModeID); err != nil {
		return nil, false, err
	}
	return schema.Empty{}, false, nil
}

func handleSetConfig(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SetConfigParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	var value string
	if err := json.Unmarshal(p.Value, &value); err != nil {
		return nil, false, invalidParams("params.value must be a string (a select's value id)")
	}
	switch p.ConfigID {
	case optionMode:
		if err := d.setPolicy(p.SessionID, value); err != nil {
			return nil, false, err
		}
	case optionModel:
		st, err := d.known(p.SessionID)
		if err != nil {
			return nil, false, err
		}
		if value != st.model {
			return nil, false, invalidParams("the model of a running session cannot change yet; start a new session with --model %s", value)
		}
	default:
		return nil, false, invalidParams("params.configId %q is not an option of this session (mode, model)", p.ConfigID)
	}
	return schema.SetConfigResult{ConfigOptions: d.configOptions(p.SessionID)}, false, nil
}

func (d *Door) setPolicy(sid, policy string) error {
	if _, err := d.known(sid); err != nil {
		return err
	}
	before, _ := d.be.Policy(d.ctx, sid)
	if err := d.be.SetPolicy(d.ctx, sid, policy); err != nil {
		return err
	}
	if policy != before {
		// Both forms, for clients that read modes and for those that read
		// config options. Changes made in other windows are not seen yet:
		// the runtime has no event for a policy change.
		d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
			Update: schema.CurrentModeUpdate{SessionUpdate: schema.UpdateCurrentMode, CurrentModeID: policy}})
		d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
			Update: schema.ConfigOptionUpdate{SessionUpdate: schema.UpdateConfigOption, ConfigOptions: d.configOptions(sid)}})
	}
	return nil
}
