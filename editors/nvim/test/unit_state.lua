-- Unit tests of the state reducer and the transcript model (no server).
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local state_mod = require("scv.state")
local transcript_mod = require("scv.transcript")

local SID = "s1"

-- A fake buffer that takes the transcript's edits the way the view does.
local function mirror()
  local buf = {}
  return {
    apply = function(edit)
      if edit == nil then
        return
      end
      for i = #buf, edit.first + 1, -1 do
        buf[i] = nil
      end
      for _, l in ipairs(edit.lines) do
        buf[#buf + 1] = l
      end
    end,
    lines = function()
      return buf
    end,
  }
end

local function new_state()
  local s = state_mod.new(SID)
  s:apply_snapshot({ sessionId = SID, cwd = "/w", model = "m", state = "idle", queue = { entries = {}, paused = false }, pendingApprovals = {}, seq = 0 })
  return s
end

local function ev(s, seq, method, p)
  p = p or {}
  p.sessionId = SID
  p.seq = seq
  return s:apply("scv/" .. method, p)
end

local function kinds(fx)
  local out = {}
  for _, f in ipairs(fx) do
    out[#out + 1] = f.kind
  end
  return out
end

local function has_kind(fx, kind)
  for _, f in ipairs(fx) do
    if f.kind == kind then
      return f
    end
  end
end

t.test("a full turn renders prompt, text, tool, usage", function()
  local s = new_state()
  local m = mirror()
  m.apply(s.transcript:take_edit())
  ev(s, 1, "turn/started", { turnId = "t1" })
  s:note_prompt("t1", "fix the notes\nplease")
  ev(s, 2, "assistant/delta", { turnId = "t1", content = "Hello" })
  m.apply(s.transcript:take_edit())
  ev(s, 3, "assistant/delta", { turnId = "t1", content = " world\nsecond" })
  ev(s, 4, "assistant/delta", { turnId = "t1", content = " line" })
  ev(s, 5, "assistant/completed", { turnId = "t1", content = "Hello world\nsecond line" })
  ev(s, 6, "tool/proposed", { turnId = "t1", callId = "c1", name = "edit_file", arguments = '{"path":"notes.md","old":"a","new":"b\\nc"}' })
  m.apply(s.transcript:take_edit())
  local fx = ev(s, 7, "approval/requested", { turnId = "t1", approvalId = "a1", callId = "c1", name = "edit_file", risk = "write", cwd = "/w", summary = "--- a\n+++ b" })
  t.ok(has_kind(fx, "approval_requested"))
  t.eq("approval", s:status().state)
  fx = ev(s, 8, "approval/resolved", { turnId = "t1", approvalId = "a1", decision = "approve" })
  t.ok(has_kind(fx, "approval_resolved"))
  ev(s, 9, "tool/started", { turnId = "t1", callId = "c1", name = "edit_file" })
  ev(s, 10, "tool/completed", { turnId = "t1", callId = "c1", name = "edit_file", success = true, output = "edited notes.md\n", truncated = false })
  ev(s, 11, "assistant/delta", { turnId = "t1", content = "Done." })
  ev(s, 12, "turn/completed", { turnId = "t1", steps = 2, usage = { inputTokens = 5, outputTokens = 7 } })
  m.apply(s.transcript:take_edit())
  t.eq(s.transcript:all_lines(), m.lines(), "incremental edits mirror the model")
  local text = table.concat(m.lines(), "\n")
  t.contains(text, "## You\nfix the notes\nplease")
  t.contains(text, "Hello world\nsecond line")
  t.contains(text, "▸ edit_file [c1] — done")
  t.contains(text, "│ path: notes.md")
  t.contains(text, "│ new:\n│   b\n│   c")
  t.contains(text, "│ decision: approve")
  t.contains(text, "│   edited notes.md")
  t.contains(text, "Done.")
  t.contains(text, "usage: 5 input · 7 output tokens · 2 steps")
  t.eq("idle", s:status().state)
  t.eq(nil, s.turn_id)
end)

t.test("deltas cost small edits and the buffer always mirrors the model", function()
  local tr = transcript_mod.new()
  local m = mirror()
  tr:header("s", "/w", nil)
  m.apply(tr:take_edit())
  tr:turn("t", "p")
  for i = 1, 2000 do
    tr:delta("t", (i % 50 == 0) and "x\n" or "x")
    if i % 97 == 0 then
      local edit = tr:take_edit()
      t.ok(i < 100 or #edit.lines <= 4, "edit is small: " .. #edit.lines)
      m.apply(edit)
    end
  end
  m.apply(tr:take_edit())
  t.eq(tr:all_lines(), m.lines())
  t.eq(nil, tr:take_edit(), "nothing left to take")
end)

t.test("a tool update in the middle rewrites from that block down", function()
  local tr = transcript_mod.new()
  local m = mirror()
  tr:tool("t", "c1", { name = "shell", arguments = '{"command":"ls"}' })
  tr:tool("t", "c2", { name = "read_file", arguments = '{"path":"x"}' })
  tr:notice("after")
  m.apply(tr:take_edit())
  tr:tool("t", "c1", { status = "done", success = true, output = "a\nb\nc" })
  local edit = tr:take_edit()
  t.eq(0, edit.first)
  m.apply(edit)
  t.eq(tr:all_lines(), m.lines())
  t.contains(m.lines(), "│   b")
end)

t.test("the same call id in two turns draws two tool blocks", function()
  local s = new_state()
  for turn = 1, 2 do
    local base = turn * 10
    ev(s, base + 1, "turn/started", { turnId = "t" .. turn })
    ev(s, base + 2, "tool/proposed", { turnId = "t" .. turn, callId = "c1", name = "shell", arguments = '{"command":"ls"}' })
    ev(s, base + 3, "approval/requested", { turnId = "t" .. turn, approvalId = "a" .. turn, callId = "c1", name = "shell", risk = "exec", summary = "ls" })
    ev(s, base + 4, "approval/resolved", { turnId = "t" .. turn, approvalId = "a" .. turn, decision = turn == 1 and "approve" or "deny" })
  end
  local text = table.concat(s.transcript:all_lines(), "\n")
  local _, n = text:gsub("▸ shell %[c1%]", "")
  t.eq(2, n)
  t.contains(text, "│ decision: approve")
  t.contains(text, "│ decision: deny")
end)

t.test("completed repairs text when deltas were missed", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 3, "assistant/delta", { turnId = "t1", content = "tail" })
  ev(s, 4, "assistant/completed", { turnId = "t1", content = "head and tail" })
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.contains(text, "head and tail")
  t.ok(not text:find("\ntail"), "partial text replaced")
end)

t.test("duplicate and old events are ignored", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 2, "assistant/delta", { turnId = "t1", content = "once" })
  local fx = ev(s, 2, "assistant/delta", { turnId = "t1", content = "once" })
  t.eq({}, fx)
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.ok(not text:find("onceonce"))
end)

t.test("attach: replayed events draw the transcript but do not touch the snapshot's queue", function()
  local s = state_mod.new(SID)
  s:apply_snapshot({
    sessionId = SID,
    cwd = "/w",
    state = "running",
    turnId = "t2",
    queue = { entries = { { queueId = "q2", revision = 3, prompt = "second" } }, paused = false },
    pendingApprovals = {},
    seq = 6,
  }, { replay = true })
  t.eq(0, s.seen_seq)
  -- replay from seq 1
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 2, "queue/enqueued", { entry = { queueId = "q1", revision = 1, prompt = "first" }, position = 0 })
  ev(s, 3, "queue/enqueued", { entry = { queueId = "q2", revision = 1, prompt = "second" }, position = 1 })
  ev(s, 4, "turn/completed", { turnId = "t1", steps = 1, usage = { inputTokens = 1, outputTokens = 1 } })
  ev(s, 5, "queue/dequeued", { queueId = "q1", turnId = "t2" })
  ev(s, 6, "turn/started", { turnId = "t2", queueId = "q1" })
  t.eq({ { queueId = "q2", revision = 3, prompt = "second" } }, s.queue, "queue is the snapshot's")
  t.eq("running", s.run)
  t.eq("t2", s.turn_id)
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.contains(text, "## You\nfirst", "queued prompt shown for the dequeued turn")
  -- live events after the snapshot change the queue
  local fx = ev(s, 7, "queue/removed", { queueId = "q2", revision = 3 })
  t.ok(has_kind(fx, "queue"))
  t.eq({}, s.queue)
end)

t.test("queue events keep order and revisions", function()
  local s = new_state()
  ev(s, 1, "queue/enqueued", { entry = { queueId = "a", revision = 1, prompt = "A" }, position = 0 })
  ev(s, 2, "queue/enqueued", { entry = { queueId = "b", revision = 1, prompt = "B" }, position = 1 })
  ev(s, 3, "queue/enqueued", { entry = { queueId = "c", revision = 1, prompt = "C" }, position = 2 })
  ev(s, 4, "queue/moved", { queueId = "c", position = 0, revision = 2 })
  ev(s, 5, "queue/updated", { entry = { queueId = "b", revision = 2, prompt = "B2" } })
  local ids = vim.tbl_map(function(e)
    return e.queueId .. e.revision .. e.prompt
  end, s.queue)
  t.eq({ "c2C", "a1A", "b2B2" }, ids)
  ev(s, 6, "session/paused", { paused = true })
  t.eq("idle (paused) · 3 queued", state_mod.format_status(s:status()))
  ev(s, 7, "queue/dequeued", { queueId = "c", turnId = "t9" })
  ev(s, 8, "turn/started", { turnId = "t9", queueId = "c" })
  t.eq(2, #s.queue)
  t.eq("running (paused) · 2 queued", state_mod.format_status(s:status()))
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.contains(text, "## You\nC")
end)

t.test("a turn that ends drops its pending approvals", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 2, "approval/requested", { turnId = "t1", approvalId = "a1", callId = "c1", name = "shell", risk = "exec", summary = "sleep 10" })
  local fx = ev(s, 3, "turn/cancelled", { turnId = "t1" })
  local r = has_kind(fx, "approval_resolved")
  t.ok(r, "approval ends with the turn: " .. vim.inspect(kinds(fx)))
  t.eq("a1", r.approval_id)
  t.eq({}, s.approvals)
  t.contains(s.transcript:all_lines(), "turn cancelled")
end)

t.test("failed turn and compaction are noted", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 2, "context/compacted", { turnId = "t1", beforeTokens = 900, afterTokens = 300, removedMessages = 4 })
  ev(s, 3, "turn/failed", { turnId = "t1", code = "provider_timeout", message = "slow" })
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.contains(text, "context compacted: 900 → 300 tokens, 4 messages removed")
  t.contains(text, "turn failed (provider_timeout): slow")
end)

-- The notice a turn's end carries (the session's file passed 80 % of
-- sessions.max_log_bytes): the transcript dropped it, so the next prompt was
-- refused with nothing shown before.
t.test("a turn's end shows the notice it carries, once, on one line", function()
  for i, method in ipairs({ "turn/completed", "turn/cancelled", "turn/failed" }) do
    local s = new_state()
    ev(s, 1, "turn/started", { turnId = "t1" })
    local p = { turnId = "t1", steps = 1, usage = {}, code = "timeout", message = "slow" }
    p.notice = "the file is nearly full (sessions.max_log_bytes)\nfork " .. i
    ev(s, 2, method, p)
    local lines = s.transcript:all_lines()
    t.contains(lines, "_note: the file is nearly full (sessions.max_log_bytes) fork " .. i .. "_")
    ev(s, 3, "turn/started", { turnId = "t2" })
    ev(s, 4, method, { turnId = "t2", steps = 1, usage = {}, code = "timeout", message = "slow" })
    local text = table.concat(s.transcript:all_lines(), "\n")
    local _, n = text:gsub("note: ", "")
    t.eq(1, n)
  end
end)

t.test("cleared resets the transcript; lagged asks for a resync", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1" })
  ev(s, 2, "assistant/delta", { turnId = "t1", content = "old text" })
  local fx = ev(s, 3, "session/cleared", {})
  t.ok(has_kind(fx, "cleared"))
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.ok(not text:find("old text"), "cleared")
  t.contains(text, "session cleared")
  fx = s:apply("scv/session/lagged", { sessionId = SID, missed = 12 })
  t.eq(12, has_kind(fx, "resync").missed)
end)

t.test("closed session ends approvals and says closed", function()
  local s = new_state()
  ev(s, 1, "approval/requested", { turnId = "t1", approvalId = "a1", callId = "c1", name = "shell", risk = "exec", summary = "x" })
  local fx = ev(s, 2, "session/closed", {})
  t.ok(has_kind(fx, "closed"))
  t.ok(has_kind(fx, "approval_resolved"))
  t.eq("closed", s:status().state)
end)

t.test("MCP server states are kept for :Scv status and :checkhealth", function()
  local s = new_state()
  ev(s, 1, "mcp/status", { name = "tracker", state = "starting" })
  ev(s, 2, "mcp/status", { name = "files", state = "starting" })
  ev(s, 3, "mcp/status", { name = "tracker", state = "failed", error = "exec: not found" })
  ev(s, 4, "mcp/status", { name = "files", state = "ready" })
  t.eq({ "files: ready", "tracker: failed (exec: not found)" }, s:mcp_lines())
  t.eq({}, new_state():mcp_lines())
end)

t.test("an MCP tool call renders like a builtin one", function()
  local s = new_state()
  ev(s, 1, "turn/started", { turnId = "t1", prompt = "echo" })
  ev(s, 2, "tool/proposed", { turnId = "t1", callId = "c1", name = "mcp__everything__echo", arguments = "{}" })
  ev(s, 3, "approval/requested", {
    turnId = "t1", approvalId = "a1", callId = "c1", name = "mcp__everything__echo",
    risk = "mcp", cwd = "/w", summary = "MCP server: everything\ntool: echo\narguments:\n{}",
  })
  t.eq("approval", s:status().state)
  ev(s, 4, "approval/resolved", { turnId = "t1", approvalId = "a1", decision = "approve" })
  ev(s, 5, "tool/completed", { turnId = "t1", callId = "c1", name = "mcp__everything__echo", success = true, output = "Echo: hi", truncated = false })
  ev(s, 6, "turn/completed", { turnId = "t1", steps = 2, usage = { inputTokens = 1, outputTokens = 1 } })
  t.eq("idle", s:status().state)
  t.ok(table.concat(s.transcript:all_lines(), "\n"):find("mcp__everything__echo", 1, true) ~= nil)
end)

t.test("replayed configure, plan and usage events are drawn; only live ones change the state", function()
  local s = state_mod.new(SID)
  -- an attach: the snapshot (seq 10) holds the current model; events up to 10 replay
  s:apply_snapshot({ sessionId = SID, cwd = "/w", model = "now", approvalPolicy = "always", state = "idle", queue = { entries = {}, paused = false }, pendingApprovals = {}, seq = 10 }, { replay = true })
  ev(s, 3, "turn/started", { turnId = "t1", prompt = "p" })
  ev(s, 4, "session/configured", { model = "old", approvalPolicy = "never" })
  ev(s, 5, "plan/updated", { turnId = "t1", steps = { { step = "a", status = "completed" } } })
  ev(s, 6, "session/usage", { turnId = "t1", inputTokens = 100, outputTokens = 20, contextTokens = 50, contextMaxTokens = 1000 })
  ev(s, 7, "turn/completed", { turnId = "t1", steps = 1, usage = { inputTokens = 100, outputTokens = 20 } })
  t.eq("now", s.model, "the snapshot's model stays")
  t.eq("always", s.approval_policy)
  t.eq(nil, s.plan, "a replayed plan is drawn, not current")
  t.eq({ from_server = true, input = 100, output = 20, context = 50, context_max = 1000 }, s.usage, "totals are not added twice")
  local text = table.concat(s.transcript:all_lines(), "\n")
  t.contains(text, "_model old · approval policy never_")
  t.contains(text, "- [x] a")
  t.eq("idle · ctx 5% · 120 tok", state_mod.format_status(s:status()))
  ev(s, 11, "session/configured", { model = "live", approvalPolicy = "on-risk" })
  ev(s, 12, "plan/updated", { turnId = "t2", steps = {} })
  t.eq("live", s.model)
  t.ok(s.plan ~= nil, "a live plan is current")
  ev(s, 13, "session/cleared", {})
  t.eq(nil, s.plan, "cleared with the session")
end)

t.test("short_count: 950, 12.3k, 40k, 1.2M", function()
  t.eq("950", state_mod.short_count(950))
  t.eq("12.3k", state_mod.short_count(12345))
  t.eq("40k", state_mod.short_count(40000))
  t.eq("1.2M", state_mod.short_count(1234567))
end)

t.run()
