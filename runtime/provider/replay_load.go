package provider

import (
	"errors"
	"fmt"
	"io/fs"

	"scv/internal/regfile"
)

// MaxReplayScriptBytes bounds a replay script file (provider.replay_script).
// A script is hand-written or recorded; its "repeat" lines stream large
// responses without a large file.
const MaxReplayScriptBytes = 8 << 20

// LoadReplayScript reads and parses the script at path. It must be a regular
// file of at most MaxReplayScriptBytes: a FIFO or device (/dev/zero) fails
// at once instead of blocking or growing without bound. Errors name path.
func LoadReplayScript(path string) (*Replay, error) {
	data, _, err := regfile.ReadFile(path, MaxReplayScriptBytes)
	var tooLarge *regfile.TooLargeError
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("replay script %s is larger than %d bytes (the replay script limit)", path, MaxReplayScriptBytes)
	case errors.As(err, &pathErr):
		return nil, fmt.Errorf("replay script %s: %w", path, pathErr.Err)
	case err != nil:
		return nil, fmt.Errorf("replay script %s: %w", path, err)
	}
	r, err := NewReplay(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
