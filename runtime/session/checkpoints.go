package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"scv/runtime/checkpoint"
	"scv/runtime/config"
	"scv/runtime/tools"
)

// checkpoints is a session's undo state beside its turns. mu guards the
// repository handle and the flags; git runs outside the session's lock.
type checkpoints struct {
	root *checkpoint.Root // nil: checkpoints are off (config, or no $SCV_HOME)
	// revertHook, when set, runs after each file a revert writes (tests
	// stop there to play a crash).
	revertHook func(path string)
	// finishHook, when set, runs as a turn's checkpoint is being finished,
	// after its terminal event (tests change files there).
	finishHook func()

	// work is the context of the session's checkpoint work (its git
	// commands). It is not the turn's: a cancelled turn's after is still
	// taken. stopWork ends it, killing a git still running, when the
	// session's close or the process's shutdown stops waiting for it
	// (checkpointCloseGrace, ShutdownGrace).
	work     context.Context
	stopWork context.CancelFunc
	// stopTimer stops the work of a closed session at
	// checkpointCloseGrace; guarded by the session's mu.
	stopTimer *time.Timer

	mu       sync.Mutex
	repo     *checkpoint.Repo
	tooLarge bool  // whole snapshots stopped: only file tools' paths are kept
	pending  int64 // bytes of the first snapshot, not accounted yet
	told     bool  // the too-large notice went out

	// settling, guarded by the session's mu, is closed when the newest
	// ended turn's checkpoint is finished (nil: none is pending). Each
	// turn's snapshot waits for the one before, so waiting for the newest
	// waits for all.
	settling chan struct{}
}

// tooLargeNotice is said once per session when checkpoints stop covering
// shell commands.
const tooLargeNotice = "the workspace is larger than checkpoints.max_bytes (%d bytes), so changes made by shell commands in this session cannot be undone; write_file and edit_file changes still can"

// checkpointCloseGrace is how long a closed session waits for the
// checkpoint its last turn is still taking before its git is stopped (and
// that turn's changes are not kept): as long as a shutdown waits for a
// turn. A healthy snapshot is done well within it; one past it is a git
// waiting on a named pipe or a stalled file system, which would otherwise
// hold the session's log open until MaxGitWait.
const checkpointCloseGrace = ShutdownGrace

// stopCheckpointWork stops the checkpoint work of every session, open or
// still closing.
func (m *Manager) stopCheckpointWork() {
	for _, s := range append(m.all(), m.closing.all()...) {
		s.ckpt.stop()
	}
}

// stop ends the checkpoint work (a session built without a manager has
// none).
func (c *checkpoints) stop() {
	if c.stopWork != nil {
		c.stopWork()
	}
}

// repoFor opens the session's repository; create false returns nil when
// the session has none yet.
func (s *Session) checkpointRepo(ctx context.Context, create bool) (*checkpoint.Repo, error) {
	c := &s.ckpt
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.repo != nil && create && !c.root.Exists(s.id) {
		// Another session's accounting dropped these checkpoints (the
		// least recently used go first): start again from scratch.
		c.repo, c.tooLarge, c.told = nil, false, false
	}
	if c.repo != nil || c.root == nil {
		return c.repo, nil
	}
	if !create && !c.root.Exists(s.id) {
		return nil, nil
	}
	repo, err := c.root.Open(ctx, s.id, s.cwd)
	if err != nil {
		return nil, err
	}
	if repo.Fresh() {
		n, err := repo.PendingBytes(ctx)
		if err != nil {
			return nil, err
		}
		c.tooLarge = n > c.root.MaxBytes()
		if !c.tooLarge {
			c.pending = n
		}
	}
	c.repo = repo
	return repo, nil
}

// checkpointBefore runs before a tool that may change the workspace (a
// file tool, shell, an MCP tool): the turn's first such call takes its
// checkpoint, and a file tool's target joins it. A failure is logged;
// the turn goes on without undo.
func (s *Session) checkpointBefore(t *turn, tool tools.Tool, args json.RawMessage) {
	risk := tool.Risk()
	// An MCP tool may write anywhere its server can: it is covered like a
	// shell command, whatever it claims (readOnlyHint is the server's word).
	if s.ckpt.root == nil || (risk != tools.RiskWrite && risk != tools.RiskExec && risk != tools.RiskMCP) {
		return
	}
	ctx := s.ckpt.work
	if t.ckpt == nil && !t.ckptFailed {
		if t.ckptAfter != nil {
			select {
			case <-t.ckptAfter: // the turn before's after comes first
			case <-t.ctx.Done():
				return // cancelled: the tool does not run either
			}
		}
		var err error
		t.ckpt, err = s.beginCheckpoint(ctx, t.id)
		if err != nil {
			t.ckptFailed = true
			s.logger().Warn("no checkpoint for this turn", "session", s.id, "turn", t.id, "err", err)
		}
	}
	if t.ckpt == nil {
		return
	}
	t.ckptUsed = true
	if risk != tools.RiskWrite {
		return
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil || a.Path == "" {
		return
	}
	abs, err := s.workspace.Resolve(a.Path)
	if err != nil {
		return // the tool refuses it too
	}
	if err := t.ckpt.Touch(ctx, s.workspace.Rel(abs)); err != nil {
		s.logger().Warn("a file was left out of the turn's checkpoint", "session", s.id, "turn", t.id, "err", err)
	}
}

// checkpointToolDone runs after a tool checkpointBefore let through: a
// file changed after the turn's last such tool is not the turn's doing.
func (s *Session) checkpointToolDone(t *turn) {
	if t.ckptUsed {
		t.ckpt.ToolDone()
	}
}

// beginCheckpoint takes turn id's checkpoint: the whole workspace, or an
// empty one its file tools fill when the workspace is too large.
func (s *Session) beginCheckpoint(ctx context.Context, id string) (*checkpoint.Turn, error) {
	repo, err := s.checkpointRepo(ctx, true)
	if err != nil {
		return nil, err
	}
	s.ckpt.mu.Lock()
	whole := !s.ckpt.tooLarge
	s.ckpt.mu.Unlock()
	return repo.Begin(ctx, id, whole)
}

// finishCheckpoint runs on the turn's goroutine after its terminal event:
// it snapshots the workspace as the turn left it, stores the turn's
// before and after, and announces what changed; then it closes settled,
// which the next checkpoint of the session, a revert, a fork and the
// changes request wait for.
func (s *Session) finishCheckpoint(t *turn, settled chan struct{}) {
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.ckpt.settling == settled {
			s.ckpt.settling = nil
			if s.closed {
				s.finishCloseLocked()
			}
			s.startNextLocked()
		}
		close(settled)
	}()
	defer s.recoverCheckpoint(t, "ending a turn's checkpoint")
	if !t.ckptUsed {
		return
	}
	if s.ckpt.finishHook != nil {
		s.ckpt.finishHook()
	}
	// The terminal event said changesPending: the changes go out even
	// when there are none (or the snapshot failed), so no client waits
	// for ever.
	ev := TurnChanges{TurnID: t.id, Files: []FileStat{}}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.announceLocked(ev)
	}()
	changes, err := t.ckpt.Finish(s.ckpt.work)
	if err != nil {
		s.logger().Warn("the turn's checkpoint could not be finished", "session", s.id, "turn", t.id, "err", err)
		return
	}
	if err := t.ckpt.LeftOut(); err != nil {
		s.logger().Warn("the turn's checkpoint left files out: their changes cannot be undone", "session", s.id, "turn", t.id, "err", err)
	}
	for _, c := range changes {
		ev.Files = append(ev.Files, FileStat{Path: c.Path, Added: c.Added, Removed: c.Removed, Binary: c.Binary})
	}
	ev.Notice = s.accountCheckpoints(t.ckpt.Whole(), s.changedBytes(changes))
}

// awaitCheckpoints waits until the checkpoints of the turns that ended
// are finished: what a revert or a fork reads is on record then.
func (s *Session) awaitCheckpoints() {
	s.mu.Lock()
	settling := s.ckpt.settling
	s.mu.Unlock()
	if settling != nil {
		<-settling
	}
}

func (s *Session) recoverCheckpoint(t *turn, doing string) {
	if v := recover(); v != nil {
		s.logger().Error("recovered from a panic "+doing, "session", s.id, "turn", t.id,
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// changedBytes is what a turn's changes add to its checkpoints, at most:
// the changed files' sizes now.
func (s *Session) changedBytes(changes []checkpoint.Change) int64 {
	var n int64
	for _, c := range changes {
		if info, err := os.Lstat(filepath.Join(s.cwd, c.Path)); err == nil {
			n += info.Size()
		}
	}
	return n
}

// accountCheckpoints bounds the checkpoints' space; it returns the notice
// when this session's whole snapshots just stopped.
func (s *Session) accountCheckpoints(whole bool, added int64) string {
	c := &s.ckpt
	c.mu.Lock()
	defer c.mu.Unlock()
	added, c.pending = added+c.pending, 0
	over, err := c.root.Account(c.repo, added)
	if err != nil {
		s.logger().Warn("checkpoint space could not be accounted", "session", s.id, "err", err)
	}
	if over || (!whole && c.tooLarge) {
		c.tooLarge = true
		if !c.told {
			c.told = true
			return fmt.Sprintf(tooLargeNotice, c.root.MaxBytes())
		}
	}
	return ""
}

// TurnChanges returns what turn turnID changed, a diff per file; with
// path only that file, with its texts before and after.
func (s *Session) TurnChanges(turnID, path string) (TurnChangesResult, error) {
	if !checkpoint.ValidTurnID(turnID) {
		// A pattern or a path is never looked up (git would match it).
		return TurnChangesResult{}, errorf(CodeTurnNotFound, "%q is not a turn id of session %s", turnID, s.id)
	}
	s.awaitCheckpoints()
	repo, err := s.checkpointRepo(s.ctx, false)
	if err != nil {
		return TurnChangesResult{}, fmt.Errorf("open checkpoints: %w", err)
	}
	if repo == nil {
		return TurnChangesResult{}, errorf(CodeTurnNotFound, "session %s has no checkpoints: no turn changed files", s.id)
	}
	files, ok, err := repo.TurnChanges(s.ctx, turnID, path)
	if err != nil {
		return TurnChangesResult{}, fmt.Errorf("changes of turn %s: %w", turnID, err)
	}
	if !ok {
		return TurnChangesResult{}, errorf(CodeTurnNotFound, "turn %s changed no files in session %s (or its checkpoints were dropped)", turnID, s.id)
	}
	res := TurnChangesResult{Files: make([]FileChange, 0, len(files))}
	for _, f := range files {
		res.Files = append(res.Files, FileChange{Path: f.Path, Diff: f.Diff, Binary: f.Binary, Before: f.Before, After: f.After})
	}
	if path != "" && len(res.Files) == 0 {
		return res, errorf(CodeInvalidParams, "turn %s did not change %s", turnID, path)
	}
	return res, nil
}

// checkpointRoot is where a session built with cfg keeps its checkpoints,
// and their bound; nil and 0 when they are off or there is no $SCV_HOME
// to keep them in.
func (m *Manager) checkpointRoot(cfg config.Config) (*checkpoint.Root, int) {
	if !cfg.Checkpoints.Enabled || m.opts.Home == "" {
		return nil, 0
	}
	// scv's home is never in a snapshot, even in a workspace holding it.
	return checkpoint.NewRoot(config.CheckpointsDir(m.opts.Home), int64(cfg.Checkpoints.MaxBytes)).KeepOut(m.opts.Home), cfg.Checkpoints.MaxBytes
}

// copyCheckpoints gives a fork the checkpoints of the session it came
// from, so each can be reverted on its own.
func (m *Manager) copyCheckpoints(from, to string) error {
	if m.opts.Home == "" {
		return nil
	}
	root := checkpoint.NewRoot(config.CheckpointsDir(m.opts.Home), 0)
	if err := root.Copy(from, to); err != nil {
		return fmt.Errorf("fork the checkpoints of session %s: %w", from, err)
	}
	return nil
}

// dropCheckpoints removes a deleted session's checkpoints.
func (m *Manager) dropCheckpoints(id string) error {
	if m.opts.Home == "" {
		return nil
	}
	if err := checkpoint.NewRoot(config.CheckpointsDir(m.opts.Home), 0).Remove(id); err != nil {
		return fmt.Errorf("remove the checkpoints of session %s: %w", id, err)
	}
	return nil
}
