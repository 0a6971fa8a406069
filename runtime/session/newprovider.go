package session

import (
	"time"

	"scv/runtime/config"
	"scv/runtime/provider"
)

// newProvider builds what answers a session: the replay script or an
// OpenAI-compatible endpoint with the configuration's credentials.
func (m *Manager) newProvider(cfg config.Config) (provider.Provider, error) {
	switch cfg.Provider.Kind {
	case "replay":
		var r *provider.Replay
		var err error
		if cfg.Provider.ReplayScript != "" {
			r, err = provider.LoadReplayScript(cfg.Provider.ReplayScript)
		} else {
			r, err = provider.NewReplay(provider.DemoScript())
		}
		if err != nil {
			return nil, errorf(CodeProviderNotConfigured, "provider.replay_script: %v", err)
		}
		return r, nil
	default:
		if err := cfg.CheckCredentials(m.opts.Getenv, m.opts.Home); err != nil {
			return nil, errorf(CodeProviderNotConfigured, "%v", err)
		}
		// The config has applied its own default already, so its 0 means
		// "no retries"; the provider reads 0 as "its default" and -1 as none.
		retries := cfg.Provider.MaxRetries
		if retries == 0 {
			retries = -1
		}
		p, err := provider.NewOpenAI(provider.OpenAIOptions{
			BaseURL:    cfg.Provider.BaseURL,
			APIKey:     cfg.APIKey(m.opts.Getenv),
			Model:      cfg.Provider.Model,
			Headers:    cfg.Provider.Headers,
			Timeout:    time.Duration(cfg.Provider.TimeoutSeconds) * time.Second,
			MaxRetries: retries,
		})
		if err != nil {
			return nil, errorf(CodeProviderNotConfigured, "%v", err)
		}
		return p, nil
	}
}
