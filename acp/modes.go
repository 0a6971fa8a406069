package acp

import (
	"encoding/json"
	"slices"

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
// them, read from the backend now. A backend that cannot tell the policy
// gets neither modes nor a mode option, rather than a guess.
func (d *Door) setup(sid string) schema.SessionSetup {
	d.readConfig(sid)
	var out schema.SessionSetup
	out.ConfigOptions = d.configOptions(sid)
	d.mu.Lock()
	if st := d.sessions[sid]; st != nil && st.policy != "" {
		out.Modes = &schema.ModeState{CurrentModeID: st.policy, AvailableModes: st.modes()}
	}
	d.mu.Unlock()
	return out
}

// modes are the modes a session's ceiling allows, in the order of modes:
// a client offers no mode the session would refuse. A backend that does
// not tell (nil) gets them all.
func (st *sessState) modes() []schema.Mode {
	if st.allowed == nil {
		return modes
	}
	return slices.DeleteFunc(slices.Clone(modes), func(m schema.Mode) bool { return !slices.Contains(st.allowed, m.ID) })
}

// readConfig asks the backend for a session's policy, model and the
// models it may switch to. The provider's list may take a moment
// (provider.ModelListTimeout), so the pump never calls it: it keeps what
// this read found, plus what SessionConfigured events tell.
func (d *Door) readConfig(sid string) {
	cfg, err := d.be.Configure(d.ctx, sid, "", "")
	models := d.be.Models(d.ctx, sid)
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.sessions[sid]
	if st == nil {
		return
	}
	if err == nil {
		st.policy, st.model, st.allowed = cfg.ApprovalPolicy, cfg.Model, cfg.AllowedPolicies
	}
	st.models = models
}

// configOptions are a session's options as this connection knows them;
// it asks the backend nothing, so the pump may call it.
func (d *Door) configOptions(sid string) []schema.ConfigOption {
	opts := []schema.ConfigOption{}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.sessions[sid]
	if st == nil {
		return opts
	}
	if st.policy != "" {
		mode := schema.ConfigOption{ID: optionMode, Name: "Approval", Category: "mode", Type: "select", CurrentValue: st.policy}
		for _, m := range st.modes() {
			mode.Options = append(mode.Options, schema.SelectOption{Value: m.ID, Name: m.Name, Description: m.Description})
		}
		opts = append(opts, mode)
	}
	if st.model != "" {
		model := schema.ConfigOption{ID: optionModel, Name: "Model", Category: "model", Type: "select", CurrentValue: st.model}
		for _, id := range withModel(st.models, st.model) {
			model.Options = append(model.Options, schema.SelectOption{Value: id, Name: id})
		}
		opts = append(opts, model)
	}
	return opts
}

// withModel is list with model in it (first, when it was missing): the
// current value is always one of a select's options.
func withModel(list []string, model string) []string {
	if slices.Contains(list, model) {
		return list
	}
	return append([]string{model}, list...)
}

func handleSetMode(d *Door, _, params json.RawMessage) (any, bool, error) {
	var p schema.SetModeParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, false, err
	}
	if err := d.configure(p.SessionID, "", p.ModeID); err != nil {
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
	var err error
	switch p.ConfigID {
	case optionMode:
		err = d.configure(p.SessionID, "", value)
	case optionModel:
		err = d.configure(p.SessionID, value, "")
	default:
		err = invalidParams("params.configId %q is not an option of this session (mode, model)", p.ConfigID)
	}
	if err != nil {
		return nil, false, err
	}
	return schema.SetConfigResult{ConfigOptions: d.configOptions(p.SessionID)}, false, nil
}

// configure switches a session's model or policy through the backend. The
// client hears of the change, as every window does, from the
// SessionConfigured event (see configured).
func (d *Door) configure(sid, model, policy string) error {
	if _, err := d.known(sid); err != nil {
		return err
	}
	if policy != "" && !slices.ContainsFunc(modes, func(m schema.Mode) bool { return m.ID == policy }) {
		return invalidParams("%q is not a mode of scv (on-risk, always, auto, never)", policy)
	}
	cfg, err := d.be.Configure(d.ctx, sid, model, policy)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if st := d.sessions[sid]; st != nil {
		st.policy, st.model, st.allowed = cfg.ApprovalPolicy, cfg.Model, cfg.AllowedPolicies
	}
	d.mu.Unlock()
	return nil
}

// configured tells the client a session's new model and policy, whichever
// window changed them: both forms, for clients that read modes and for
// those that read config options.
func (d *Door) configured(sid string, c session.SessionConfigured) {
	d.mu.Lock()
	st := d.sessions[sid]
	if st != nil {
		st.policy, st.model = c.ApprovalPolicy, c.Model
	}
	d.mu.Unlock()
	if st == nil {
		return
	}
	d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
		Update: schema.CurrentModeUpdate{SessionUpdate: schema.UpdateCurrentMode, CurrentModeID: c.ApprovalPolicy}})
	d.notify(schema.MethodSessionUpdate, schema.Notification{SessionID: sid,
		Update: schema.ConfigOptionUpdate{SessionUpdate: schema.UpdateConfigOption, ConfigOptions: d.configOptions(sid)}})
}
