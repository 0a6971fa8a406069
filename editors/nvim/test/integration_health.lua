-- Integration: :checkhealth scv against the real binary, and setup()
-- validation.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")

it.replay({ { text = "hi" }, { stop = true } })

t.test("setup() errors name the bad option", function()
  local cases = {
    { { daemon = "sometimes" }, "option 'daemon' must be one of auto|never|required" },
    { { approval_policy = "yolo" }, "option 'approval_policy'" },
    { { cmd = {} }, "option 'cmd' must be a non-empty list of strings" },
    { { colour = "red" }, "unknown option 'colour'" },
    { { transcript = { opn = "split" } }, "unknown option 'transcript.opn'" },
    { { keymaps = { transcript = { cancel = 3 } } }, "option 'keymaps.transcript.cancel'" },
    { { keymaps = { global = { ["<leader>x"] = "explode" } } }, 'keymaps.global["<leader>x"] must name a sub-command' },
  }
  for _, c in ipairs(cases) do
    local ok, err = pcall(require("scv").setup, c[1])
    t.eq(false, ok, vim.inspect(c[1]))
    t.contains(err, c[2])
  end
  t.eq(nil, require("scv").instance(), "a refused setup() leaves the plugin unconfigured")
end)

t.test(":checkhealth scv reports binary, version, protocol, daemon and config", function()
  it.setup({ keymaps = { global = { ["<leader>zq"] = "queue" } } })
  local text = it.health_report()
  io.stdout:write(text .. "\n")
  t.contains(text, "OK: setup() was called")
  t.contains(text, "OK: found " .. it.bin)
  t.contains(text, "OK: version: scv")
  t.contains(text, "OK: protocol version 1 (server scv")
  t.contains(text, "no daemon running")
  t.contains(text, "OK: user config: " .. it.home .. "/config.toml")
  t.ok(not text:find("ERROR", 1, true), "no errors")
  t.eq("<Cmd>Scv queue<CR>", vim.fn.maparg("<leader>zq", "n"))
end)

t.test(":Scv log shows the plugin's log", function()
  vim.cmd("Scv prompt hello")
  it.wait_transcript(t, require("scv").instance(), "hi")
  -- the next test prompts again: let this turn end first
  t.wait(it.TIMEOUT_MS, function()
    return require("scv").instance().state.run == "idle"
  end, "the turn to end")
  vim.cmd("Scv log")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  t.eq("scv://log", vim.api.nvim_buf_get_name(0))
  t.contains(text, "Neovim's LSP log")
  t.contains(text, "initialized scv")
  t.contains(text, "session ")
  vim.cmd("close")
end)

t.test("the server advertises exactly the notifications the plugin handles, and every method it sends", function()
  local protocol = require("scv.protocol")
  local info = require("scv").instance().client.info
  local function set(list)
    local out = {}
    for _, v in ipairs(list) do
      out[v] = true
    end
    return out
  end
  t.eq(set(protocol.notifications), set(info.scv.notifications))
  local methods = set(info.scv.methods)
  for _, m in pairs(protocol.request) do
    t.ok(methods[m], "the server does not serve " .. m)
  end
end)

t.test("a server that dies is restarted; the window re-attaches to its stored session and goes on", function()
  local seen = it.capture_notify()
  local ctl = require("scv").instance()
  vim.cmd("Scv prompt hello")
  it.wait_transcript(t, ctl, "hi")
  local first = ctl.state.session_id
  local seq_before = ctl.state.live_seq
  local err, status = it.request(t, ctl, "scv/daemon/status", nil)
  t.eq(nil, err)
  t.eq("stdio", status.mode)
  local uv = vim.uv or vim.loop
  uv.kill(status.pid, "sigkill")
  t.wait(it.TIMEOUT_MS, function()
    return it.notified(seen, "restarting it (1/3)") ~= nil
  end, "the restart")
  -- The new server loads the session from disk; its seq continues above
  -- every seq the old one sent, so the snapshot moves live_seq on.
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state ~= nil and ctl.state.session_id == first and ctl.state.live_seq > seq_before
  end, "the re-attach to the stored session")
  t.ok(it.notified(seen, "the session ended with the server") == nil, "the session was not lost")
  t.ok(ctl.client:is_running(), "a new server runs")
  local before_turn = ctl.state.live_seq
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state.run == "idle"
  end, "the restored session to be idle")
  vim.cmd("Scv prompt hello again")
  t.wait(it.TIMEOUT_MS, function()
    return ctl.state ~= nil and ctl.state.session_id == first and ctl.state.run == "idle" and ctl.state.seen_seq > before_turn
  end, "a turn in the same session")
end)

t.run()
