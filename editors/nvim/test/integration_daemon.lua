-- Integration: the plugin through the shared daemon (daemon = "required"),
-- with a second `scv lsp` as another editor window on the same session.
-- run.sh stops the daemon after this file.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")
local peer_mod = dofile(vim.g.scv_test_root .. "/test/peer.lua")

it.replay({
  { text = "Hello from the daemon" },
  { tool_call = { id = "c1", name = "edit_file", arguments = { path = "notes.md", old = "a", new = "b" } } },
  { stop = true },
  { text = "Edited." },
  { usage = { input_tokens = 1, output_tokens = 1 } },
  { stop = true },
})
local notes = it.workspace .. "/notes.md"
it.write_file(notes, "a\n")
local seen = it.capture_notify()
local ctl = it.setup({ daemon = "required" })
local peer

-- holds the approval in a picker window, as a floating picker would
local held = it.stub_select(function(_, _, p)
  local b = vim.api.nvim_create_buf(false, true)
  p.picker_win = vim.api.nvim_open_win(b, false, { relative = "editor", row = 0, col = 0, width = 20, height = 3 })
  return false
end)

t.test("a turn runs through the daemon", function()
  vim.cmd("Scv prompt fix the notes")
  t.wait(it.TIMEOUT_MS, function()
    return #held == 1
  end, "the approval prompt")
  t.eq(true, ctl.client.info.scv.daemon, "initialize says the daemon serves it")
  t.contains(table.concat(ctl:describe(), "\n"), "through the daemon")
end)

t.test("another window attaches, sees the pending approval and approves: this prompt closes", function()
  peer = peer_mod.start(t, { it.bin, "lsp", "--daemon=auto" }, it.TIMEOUT_MS)
  t.eq(true, peer.init.capabilities.experimental.scv.daemon)
  local list = peer:request("scv/session/list", nil)
  t.eq(ctl.state.session_id, list.sessions[1].sessionId)
  local snap = peer:request("scv/session/attach", { sessionId = ctl.state.session_id })
  t.eq(1, #snap.pendingApprovals)
  local _, err = peer:request("scv/approval/resolve", {
    sessionId = ctl.state.session_id,
    approvalId = snap.pendingApprovals[1].approvalId,
    decision = "approve",
  })
  t.eq(nil, err)
  t.wait(it.TIMEOUT_MS, function()
    return it.notified(seen, "resolved elsewhere (approve)") ~= nil
  end, "the resolved-elsewhere message")
  t.ok(not vim.api.nvim_win_is_valid(held[1].picker_win), "the picker closed")
  it.wait_transcript(t, ctl, "Edited.")
  -- the turn ends after its answer (a server with checkpoints may list its
  -- changes before or after that): the next test starts a turn of its own
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.run == "idle"
  end, "the turn to end")
  t.eq("b\n", it.read_file(notes))
end)

t.test("a prompt from the other window streams here too, and is approved here", function()
  it.write_file(notes, "a\n")
  it.stub_select(function()
    return "Approve"
  end)
  local result = peer:request("scv/turn/start", { sessionId = ctl.state.session_id, prompt = "from the peer" })
  t.eq("started", result.status)
  -- scv/turn/started carries the prompt: shown as asked, not as "sent from another client"
  local buf = it.wait_transcript(t, ctl, "## You\nfrom the peer\n")
  t.eq(nil, it.text(buf):find("another client", 1, true))
  -- its changes follow its end (scv/turn/changes after the terminal event)
  t.wait(it.TIMEOUT_MS, function()
    local text = it.text(buf)
    local _, n = text:gsub("_usage: ", "")
    local _, changed = text:gsub("%*%*1 file changed%*%*", "")
    return n == 2 and changed == 2 and ctl.state.run == "idle"
  end, "the peer's turn and its changes to arrive here")
  peer:wait_notification("scv/approval/resolved")
  t.eq("b\n", it.read_file(notes))
end)

t.test("the session outlives this editor's server; attach restores it", function()
  local sid = ctl.state.session_id
  local buf = it.buf_by_name("scv://" .. sid)
  local before = it.text(buf)
  vim.cmd("Scv stop")
  t.wait(it.TIMEOUT_MS, function()
    return not ctl.client:is_running()
  end, "the bridge to stop")
  local list = peer:request("scv/session/list", nil)
  t.eq(sid, list.sessions[1].sessionId, "the daemon keeps the session")
  vim.cmd("Scv attach " .. sid)
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state ~= nil and ctl.state.session_id == sid and ctl.client:is_running()
  end, "the re-attach")
  it.drain(t)
  ctl.views[sid]:flush()
  t.eq(before, it.text(it.buf_by_name("scv://" .. sid)), "nothing lost, nothing repeated")
end)

t.test(":checkhealth scv sees the daemon", function()
  local text = it.health_report()
  t.contains(text, "OK: daemon running (pid")
  t.contains(text, "1 sessions")
  t.eq(0, peer:close())
end)

t.run()
