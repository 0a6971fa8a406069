-- Integration: the queue buffer, conflicts, pause/resume, cancel and an
-- approval resolved elsewhere, against the real `scv lsp`. The running turn
-- waits on a shell approval the stubbed picker holds, so prompts queue
-- behind it for as long as the test needs.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")

it.replay({
  { text = "working" },
  { tool_call = { id = "c1", name = "shell", arguments = { command = "echo hi" } } },
  { stop = true },
  { text = "shell done" },
  { usage = { input_tokens = 1, output_tokens = 2 } },
  { stop = true },
})
local seen = it.capture_notify()
local ctl = it.setup()

local function prompts_of(list)
  return vim.tbl_map(function(e)
    return e.prompt
  end, list)
end

-- The stubbed picker holds every prompt and opens a float of its own, as
-- dressing/telescope-style pickers do.
local held = it.stub_select(function(_, _, p)
  local b = vim.api.nvim_create_buf(false, true)
  p.picker_win = vim.api.nvim_open_win(b, false, { relative = "editor", row = 0, col = 0, width = 20, height = 3 })
  return false
end)

local function server_queue()
  local err, result = it.request(t, ctl, "scv/queue/list", { sessionId = ctl.state.session_id })
  t.eq(nil, err)
  return result
end

t.test("a turn waits on a shell approval held by the picker", function()
  vim.cmd("Scv prompt first")
  t.wait(it.TIMEOUT_MS, function()
    return #held == 1
  end, "the approval prompt")
  t.contains(held[1].opts.prompt, "shell (exec risk): $ echo hi")
  t.eq("approval", it.status())
end)

t.test("prompts sent while it runs are queued", function()
  vim.cmd("Scv prompt second")
  vim.cmd("Scv prompt third")
  vim.cmd("Scv prompt fourth")
  ctl:prompt("five\nlines")
  t.wait(it.TIMEOUT_MS, function()
    return #ctl.state.queue == 4
  end, "four queued entries")
  t.eq({ "second", "third", "fourth", "five\nlines" }, prompts_of(ctl.state.queue))
  t.ok(it.notified(seen, "prompt queued at position 4"))
  t.eq("approval · 4 queued", it.status())
end)

local qbuf

t.test("the queue buffer shows one entry per line, multi-line prompts escaped", function()
  vim.cmd("Scv queue")
  qbuf = vim.api.nvim_get_current_buf()
  t.eq("scv://" .. ctl.state.session_id .. "/queue", vim.api.nvim_buf_get_name(qbuf))
  t.eq("acwrite", vim.bo[qbuf].buftype)
  t.eq({ "second", "third", "fourth", "five\\nlines" }, it.lines(qbuf))
  t.eq(false, vim.bo[qbuf].modified)
end)

t.test("editing, deleting and reordering lines, then :w, updates, removes and moves", function()
  vim.cmd("normal! ggA, edited")
  vim.cmd("3delete")
  vim.cmd("2move 0")
  t.eq({ "third", "second, edited", "five\\nlines" }, it.lines(qbuf))
  vim.cmd("write")
  t.wait(it.TIMEOUT_MS, function()
    return it.notified(seen, "queue written") ~= nil
  end, "the queue to be written")
  t.eq({ "third", "second, edited", "five\nlines" }, prompts_of(server_queue().entries))
  t.eq({ "third", "second, edited", "five\nlines" }, prompts_of(ctl.state.queue))
  t.eq({ "third", "second, edited", "five\\nlines" }, it.lines(qbuf))
  t.eq(false, vim.bo[qbuf].modified)
end)

t.test("a stale revision gets queue_conflict: the buffer reloads and says so", function()
  vim.api.nvim_set_current_buf(qbuf)
  vim.cmd("normal! ggA, mine")
  -- another client edits the same entry first
  local e = server_queue().entries[1]
  local err = it.request(t, ctl, "scv/queue/update", {
    sessionId = ctl.state.session_id,
    queueId = e.queueId,
    revision = e.revision,
    prompt = "third, theirs",
  })
  t.eq(nil, err)
  t.eq("third, mine", it.lines(qbuf)[1], "pending edits are not overwritten")
  vim.cmd("write")
  t.wait(it.TIMEOUT_MS, function()
    return it.notified(seen, "changed elsewhere (queue_conflict)") ~= nil
  end, "the conflict message")
  t.eq({ "third, theirs", "second, edited", "five\\nlines" }, it.lines(qbuf))
  t.eq(false, vim.bo[qbuf].modified)
end)

t.test("pause keeps queued prompts waiting; cancel ends the turn and closes its prompt", function()
  vim.cmd("Scv pause")
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.paused
  end, "paused")
  t.eq("approval (paused) · 3 queued", it.status())
  vim.cmd("Scv cancel")
  it.wait_transcript(t, ctl, "turn cancelled")
  t.wait(it.TIMEOUT_MS, function()
    return not vim.api.nvim_win_is_valid(held[1].picker_win)
  end, "the picker of the cancelled turn's approval to close")
  t.eq(nil, ctl.approvals:current())
  t.ok(it.notified(seen, "approval for shell ended with its turn"))
  -- a late answer of the closed prompt is ignored: nothing is sent
  local sent = {}
  local orig = ctl.request
  ctl.request = function(self, method, params, cb)
    sent[#sent + 1] = method
    return orig(self, method, params, cb)
  end
  held[1].cb(held[1].items[1], 1)
  it.drain(t)
  ctl.request = orig
  t.eq({}, sent)
  t.eq("idle (paused) · 3 queued", it.status())
  t.eq(3, #server_queue().entries, "paused: nothing started")
end)

t.test("resume starts the next prompt; an approval resolved elsewhere closes its prompt", function()
  vim.cmd("Scv resume")
  t.wait(it.TIMEOUT_MS, function()
    return #held == 2
  end, "the next turn's approval prompt")
  it.wait_transcript(t, ctl, "## You\nthird, theirs")
  local a = ctl.approvals:current()
  t.ok(a, "a prompt is open")
  local err = it.request(t, ctl, "scv/approval/resolve", {
    sessionId = ctl.state.session_id,
    approvalId = a.approvalId,
    decision = "approve",
  })
  t.eq(nil, err)
  t.wait(it.TIMEOUT_MS, function()
    return it.notified(seen, "resolved elsewhere (approve)") ~= nil
  end, "the resolved-elsewhere message")
  t.ok(not vim.api.nvim_win_is_valid(held[2].picker_win), "the picker's window was closed")
  t.ok(held[2].float_win == nil or not vim.api.nvim_win_is_valid(held[2].float_win), "the summary float was closed")
  held[2].cb(held[2].items[2], 2)
  it.wait_transcript(t, ctl, "shell done")
  t.contains(it.text(it.buf_by_name("scv://" .. ctl.state.session_id)), "│   hi")
end)

t.test("the rest of the queue drains with approvals given", function()
  it.stub_select(function()
    return "Approve"
  end)
  for _, p in ipairs(held) do
    if p.picker_win and vim.api.nvim_win_is_valid(p.picker_win) then
      vim.api.nvim_win_close(p.picker_win, true)
    end
  end
  -- a prompt may be open in the holding stub: ask again with the new one
  ctl.approvals:reset()
  ctl:_reconcile_approvals()
  t.wait(it.TIMEOUT_MS, function()
    return #ctl.state.queue == 0 and ctl.state.run == "idle" and #ctl.state.approvals == 0
  end, "the queue to drain")
  local buf = it.wait_transcript(t, ctl, "## You\nfive\nlines")
  t.wait(it.TIMEOUT_MS, function()
    local _, turns = it.text(buf):gsub("_usage: ", "")
    return turns == 3
  end, "three completed turns in the transcript")
  t.contains(it.text(buf), "## You\nsecond, edited")
  t.eq("idle", it.status())
end)

t.test(":Scv clear empties the history", function()
  vim.cmd("Scv clear")
  local buf = it.wait_transcript(t, ctl, "session cleared")
  t.ok(not it.text(buf):find("shell done", 1, true), "old turns are gone")
end)

t.run()
