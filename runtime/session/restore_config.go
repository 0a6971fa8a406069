package session

import (
	"scv/runtime/config"
	"scv/runtime/store"
)

// storedOverrides are what a loaded session takes from its own file over
// the user's and the project's config: the provider, model and approval
// policy it was created with, or those scv/session/configure last set. They
// beat the serving process's command-line flags too, which are returned
// without them: the flags are the defaults of new sessions, and a session
// keeps its own choice across a reload or a restart under other flags. The
// project rule still holds (config.CheckLivePolicy): a stored policy looser
// than the one the workspace's project file now sets yields to the
// project's, and why is returned as a warning.
func storedOverrides(home, cwd string, h store.Header, configured *SessionConfigured, flags config.Overrides) (own, rest config.Overrides, warning error) {
	own = config.Overrides{Provider: h.Provider, Model: h.Model, ApprovalPolicy: h.ApprovalPolicy}
	if configured != nil {
		own.Model, own.ApprovalPolicy = configured.Model, configured.ApprovalPolicy
	}
	if own.ApprovalPolicy != "" {
		projectPolicy, file, err := config.ProjectPolicy(home, cwd)
		if err != nil {
			// Loading the config reports the project file's error.
			return own, flags, nil
		}
		if err := config.CheckLivePolicy(own.ApprovalPolicy, projectPolicy, file); err != nil {
			own.ApprovalPolicy, warning = projectPolicy, err
		}
	}
	rest = flags
	if own.Provider != "" {
		rest.Provider = ""
	}
	if own.Model != "" {
		rest.Model = ""
	}
	if own.ApprovalPolicy != "" {
		rest.ApprovalPolicy = ""
	}
	return own, rest, warning
}
