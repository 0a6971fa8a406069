-- Unit tests of the controller with a fake connection: the requests it
-- sends for each command and notification, without a server.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")

local notes = {}
vim.notify = function(msg)
  notes[#notes + 1] = msg
end

local fake = dofile(vim.g.scv_test_root .. "/test/fake_ctl.lua")
local fake_controller, last, snapshot, note = fake.controller, fake.last, fake.snapshot, fake.note

t.test("the first prompt starts a session in the cwd, then sends the turn", function()
  local ctl, sent = fake_controller()
  ctl:prompt("hello", nil)
  local start = last(sent, "scv/session/start")
  t.eq(vim.fn.getcwd(), start.params.cwd)
  t.eq(nil, last(sent, "scv/turn/start"), "the turn waits for the session")
  start.cb(nil, snapshot("s1", 0))
  local turn = last(sent, "scv/turn/start")
  t.eq({ sessionId = "s1", prompt = "hello" }, turn.params)
  turn.cb(nil, { status = "started", turnId = "t1" })
  note(ctl, 1, "turn/started", { turnId = "t1" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "hi there" })
  ctl.views.s1:flush()
  local text = table.concat(vim.api.nvim_buf_get_lines(ctl.views.s1.buf, 0, -1, false), "\n")
  t.contains(text, "## You\nhello\n\nhi there")
  t.eq("running", ctl:status_text())
end)

t.test("two prompts before the session answers start one session", function()
  local ctl, sent = fake_controller()
  ctl:prompt("one", nil)
  ctl:prompt("two", nil)
  local starts = vim.tbl_filter(function(s)
    return s.method == "scv/session/start"
  end, sent)
  t.eq(1, #starts)
  starts[1].cb(nil, snapshot("s2", 0))
  local turns = vim.tbl_filter(function(s)
    return s.method == "scv/turn/start"
  end, sent)
  t.eq(2, #turns)
end)

t.test("a lagged connection re-attaches after the last drawn event", function()
  local ctl, sent = fake_controller()
  ctl:prompt("go", nil)
  last(sent, "scv/session/start").cb(nil, snapshot("s3", 0))
  note(ctl, 1, "turn/started", { turnId = "t1" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "a" })
  ctl:_on_notification("scv/session/lagged", { sessionId = "s3", missed = 5 })
  local attach = last(sent, "scv/session/attach")
  t.eq({ sessionId = "s3", afterSeq = 2 }, attach.params)
  attach.cb(nil, snapshot("s3", 8, { state = "running", turnId = "t1" }))
  -- the replay: 3..8, then live
  for seq = 3, 8 do
    note(ctl, seq, "assistant/delta", { turnId = "t1", content = tostring(seq) })
  end
  note(ctl, 9, "turn/completed", { turnId = "t1", steps = 1, usage = { inputTokens = 1, outputTokens = 1 } })
  ctl.views.s3:flush()
  local text = table.concat(vim.api.nvim_buf_get_lines(ctl.views.s3.buf, 0, -1, false), "\n")
  t.contains(text, "\na\n")
  t.contains(text, "\n345678\n", "the replay goes on after the notice, nothing repeated")
  t.contains(text, "missed 5 events")
  t.eq("idle", ctl:status_text())
end)

t.test("commands name the running turn and the session", function()
  local ctl, sent = fake_controller()
  ctl:prompt("go", nil)
  last(sent, "scv/session/start").cb(nil, snapshot("s4", 0))
  ctl:cancel()
  t.eq(nil, last(sent, "scv/turn/cancel"), "nothing to cancel")
  note(ctl, 1, "turn/started", { turnId = "t7" })
  ctl:cancel()
  t.eq({ sessionId = "s4", turnId = "t7" }, last(sent, "scv/turn/cancel").params)
  ctl:pause(true)
  t.eq({ sessionId = "s4", paused = true }, last(sent, "scv/session/pause").params)
  last(sent, "scv/session/pause").cb(nil, { paused = true })
  t.eq("running (paused)", ctl:status_text())
  ctl:clear()
  last(sent, "scv/session/clear").cb({ code = -32000, message = "busy", data = { code = "turn_active" } })
  t.contains(notes[#notes], "cancel it before clearing")
end)

t.test("an approval answered through vim.ui.select is resolved with its decision", function()
  local ctl, sent = fake_controller()
  local asked
  vim.ui.select = function(items, opts, cb)
    asked = opts
    cb(items[3], 3)
  end
  ctl:prompt("go", nil)
  last(sent, "scv/session/start").cb(nil, snapshot("s5", 0))
  note(ctl, 1, "turn/started", { turnId = "t1" })
  note(ctl, 2, "approval/requested", {
    turnId = "t1",
    approvalId = "a1",
    callId = "c1",
    name = "write_file",
    risk = "write",
    cwd = "/w",
    summary = "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+new",
  })
  t.wait(2000, function()
    return last(sent, "scv/approval/resolve") ~= nil
  end, "the resolve request")
  t.eq({ sessionId = "s5", approvalId = "a1", decision = "approve-session" }, last(sent, "scv/approval/resolve").params)
  t.contains(asked.prompt, "write_file (write risk)")
end)

t.run()
