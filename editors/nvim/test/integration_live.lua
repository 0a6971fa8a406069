-- Integration of issues 12 and 13 against the real `scv lsp` (replay
-- provider): the plan, changed files, usage, :Scv diff, :Scv model,
-- :Scv policy, steering a turn that waits on an approval, :Scv undo. A test
-- whose method the server does not advertise says it skipped (a server
-- without issue 12/13); every other check runs.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")

-- The replay provider answers a request by counting the assistant messages
-- since the last user message, so a steer (a user message) starts the
-- script again: plan, command (held while the user steers), plan, command,
-- edit, answer.
local script = {
  { tool_call = { id = "p1", name = "update_plan", arguments = { steps = { { step = "edit the notes", status = "in_progress" } } } } },
  { stop = true },
  { tool_call = { id = "s1", name = "shell", arguments = { command = "echo hi" } } },
  { stop = true },
  { tool_call = { id = "e1", name = "edit_file", arguments = { path = "notes.md", old = "a", new = "b" } } },
  { usage = { input_tokens = 1200, output_tokens = 34 } },
  { stop = true },
  { text = "Edited." },
  { stop = true },
}
it.replay(script)
local notes = it.workspace .. "/notes.md"
it.write_file(notes, "a\n")
local seen = it.capture_notify()
local ctl = it.setup({ prompt_while_running = "ask" })

-- answers by kind; an approval of `shell` is held while hold_shell is set
local hold_shell, held = false, nil
local answers = {
  ["scv.model"] = "alt-model  (config)",
  ["scv.policy"] = "always",
  ["scv.prompt_mode"] = "Send now (steer the running turn)",
  ["scv.confirm_revert"] = "Revert",
}
local asked = it.stub_select(function(_, opts, p)
  if opts.kind == "scv.approval" then
    if hold_shell and opts.prompt:find("shell", 1, true) then
      held = p
      return false
    end
    return "Approve"
  end
  return answers[opts.kind]
end)

-- What the binary serves, asked once with the plain config by a second
-- `scv lsp`: the config keys of issues 12 and 13 are written only for a
-- server that knows them (an older one refuses unknown keys).
t.test("the config for this server", function()
  local probe = dofile(vim.g.scv_test_root .. "/test/peer.lua").start(t, { it.bin, "lsp", "--daemon=never" }, it.TIMEOUT_MS)
  local served = probe.init.capabilities.experimental.scv.methods or {}
  t.eq(0, probe:close())
  local extra = ""
  if vim.tbl_contains(served, "scv/model/list") then
    extra = extra .. 'models = ["alt-model"]\n'
  end
  if vim.tbl_contains(served, "scv/turn/revert") then
    extra = extra .. "\n[checkpoints]\nenabled = true\n"
  end
  it.replay(script, extra)
end)

local function serves(method)
  ctl:ensure_client()
  t.wait(it.TIMEOUT_MS, function()
    return ctl.client.info ~= nil
  end, "the server's initialize answer")
  if ctl.client:serves(method) then
    return true
  end
  io.stdout:write("  SKIPPED: the server does not serve " .. method .. "\n")
  return false
end

local function transcript_buf()
  return it.buf_by_name("scv://" .. ctl.state.session_id)
end

local function line_of(buf, needle)
  for i, l in ipairs(it.lines(buf)) do
    if l == needle then
      return i
    end
  end
  error("no line " .. needle)
end

local function kinds()
  return vim.tbl_map(function(p)
    return p.opts.kind
  end, asked)
end

t.test("a turn shows its plan, takes a steer while it waits on an approval, lists its changes, and usage", function()
  hold_shell = serves("scv/turn/steer")
  vim.cmd("Scv prompt edit the notes")
  if hold_shell then
    t.wait(it.TIMEOUT_MS, function()
      return held ~= nil
    end, "the held shell approval")
    vim.cmd("Scv prompt go left instead")
    t.ok(vim.tbl_contains(kinds(), "scv.prompt_mode"), "steer or queue was asked")
    hold_shell = false
    held.cb(held.items[1], 1) -- approve the held command
  end
  local buf = it.wait_transcript(t, ctl, "Edited.")
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.run == "idle"
  end, "the turn to end")
  t.eq("b\n", it.read_file(notes))
  t.eq(0, #ctl.state.queue, "nothing was queued")
  if held then
    t.contains(it.text(buf), "## You (steering the running turn)\ngo left instead\n")
  end
  if serves("scv/turn/revert") then
    it.wait_transcript(t, ctl, "- notes.md (+1 −1)")
  end
  local sends = ctl.client.info.scv.notifications or {}
  if vim.tbl_contains(sends, "scv/plan/updated") then
    t.contains(it.text(buf), "### Plan\n- [~] edit the notes ← in progress")
    t.ok(require("scv").status():find("· 1.2k tok", 1, true), require("scv").status())
  else
    io.stdout:write("  SKIPPED: the server sends no scv/plan/updated\n")
  end
end)

t.test(":Scv diff on the changed file opens before ↔ after from the server's checkpoint", function()
  if not serves("scv/turn/changes") then
    return
  end
  local buf = transcript_buf()
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
  vim.api.nvim_win_set_cursor(0, { line_of(buf, "- notes.md (+1 −1)"), 0 })
  vim.cmd("Scv diff")
  t.wait(it.TIMEOUT_MS, function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  local wins = vim.api.nvim_tabpage_list_wins(0)
  t.eq({ "a" }, it.lines(vim.api.nvim_win_get_buf(wins[1])), "before the turn")
  t.eq({ "b" }, it.lines(vim.api.nvim_win_get_buf(wins[2])), "after it")
  t.ok(vim.wo[wins[1]].diff and vim.wo[wins[2]].diff, ":diffthis in both")
  vim.cmd("tabclose")
end)

t.test(":Scv model and :Scv policy switch the live session", function()
  if not serves("scv/model/list") then
    return
  end
  vim.cmd("Scv model")
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.model == "alt-model"
  end, "the model switch")
  t.ok(vim.tbl_contains(kinds(), "scv.model"))
  it.wait_transcript(t, ctl, "model alt-model")
  vim.cmd("Scv policy")
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.approval_policy == "always"
  end, "the policy switch")
  t.ok(it.notified(seen, "approval policy always"))
end)

t.test(":Scv undo on the first turn reverts its edit and marks the reverted turns", function()
  if not serves("scv/turn/revert") then
    return
  end
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.run == "idle"
  end, "no turn running")
  local buf = transcript_buf()
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
  vim.api.nvim_win_set_cursor(0, { line_of(buf, "edit the notes"), 0 })
  vim.cmd("Scv undo")
  t.wait(it.TIMEOUT_MS, function()
    return it.read_file(notes) == "a\n"
  end, "notes.md restored")
  it.wait_transcript(t, ctl, "## You — reverted\nedit the notes")
  t.ok(it.notified(seen, "reverted 1 file(s): notes.md"))
end)

t.run()
