-- A controller on a fake connection for unit tests: every request is
-- recorded with its callback, so a test answers it as the server would and
-- feeds notifications in, without a server.
local config = require("scv.config")
local controller = require("scv.controller")

local M = {}

function M.controller(opts)
  local ctl = controller.new(config.resolve(vim.tbl_deep_extend("force", { transcript = { open = false }, flush_interval_ms = 1 }, opts or {})))
  local sent = {}
  local fake = { running = true }
  function fake.is_running()
    return fake.running
  end
  function fake.request(_, method, params, cb)
    sent[#sent + 1] = { method = method, params = params, cb = cb }
  end
  function fake.stop()
    fake.running = false
  end
  ctl.client = fake
  return ctl, sent
end

function M.last(sent, method)
  for i = #sent, 1, -1 do
    if sent[i].method == method then
      return sent[i]
    end
  end
end

--- Waits for the first request of method sent after the first `after`
--- requests in sent, and returns it (t is the test harness).
function M.wait_request(t, sent, method, after)
  local found
  t.wait(2000, function()
    for i = (after or 0) + 1, #sent do
      if sent[i].method == method then
        found = sent[i]
        return true
      end
    end
    return false
  end, method)
  return found
end

function M.snapshot(sid, seq, extra)
  return vim.tbl_extend("force", {
    sessionId = sid,
    cwd = "/w",
    model = "m",
    state = "idle",
    queue = { entries = {}, paused = false },
    pendingApprovals = {},
    seq = seq,
  }, extra or {})
end

function M.note(ctl, seq, method, p)
  p.sessionId = ctl.state.session_id
  p.seq = seq
  ctl:_on_notification("scv/" .. method, p)
end

--- The plugin's own controller (require("scv").setup), on a fake
--- connection, so :Scv commands reach it; call once per test file.
function M.setup(opts)
  require("scv").setup(vim.tbl_deep_extend("force", { transcript = { open = false }, flush_interval_ms = 1 }, opts or {}))
  local ctl = require("scv").instance()
  local sent = {}
  local fake = { running = true, methods = nil }
  function fake.is_running()
    return fake.running
  end
  function fake.request(_, method, params, cb)
    sent[#sent + 1] = { method = method, params = params, cb = cb }
  end
  function fake.serves(_, method)
    return fake.methods == nil or vim.tbl_contains(fake.methods, method)
  end
  function fake.stop()
    fake.running = false
  end
  ctl.client = fake
  return ctl, sent, fake
end

--- A fresh current session sid (any earlier one is dropped).
function M.session(ctl, sent, sid, extra)
  ctl.state = nil
  ctl:ensure_session(function() end)
  M.last(sent, "scv/session/start").cb(nil, M.snapshot(sid, 0, extra))
  return ctl.state
end

--- The text of a session's transcript buffer, flushed now.
function M.transcript(ctl)
  local view = ctl.views[ctl.state.session_id]
  view:flush()
  return table.concat(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false), "\n")
end

--- Replace vim.ui.select: answer(items, opts) returns the label (through
--- opts.format_item) to choose, or nil to cancel. Every question is kept.
function M.stub_select(answer)
  local asked = {}
  vim.ui.select = function(items, opts, cb)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    asked[#asked + 1] = { items = items, opts = opts, labels = labels }
    local want = answer(labels, opts)
    for i, l in ipairs(labels) do
      if want ~= nil and l == want then
        cb(items[i], i)
        return
      end
    end
    if want ~= nil then
      error("stub select: no item labelled " .. tostring(want) .. " in " .. vim.inspect(labels))
    end
    cb(nil, nil)
  end
  return asked
end


-- Replaces vim.notify with a recorder; the function returned tells whether
-- a message holding needle was notified.
function M.capture_notify()
  local notes = {}
  vim.notify = function(msg)
    notes[#notes + 1] = msg
  end
  return function(needle)
    for _, n in ipairs(notes) do
      if tostring(n):find(needle, 1, true) then
        return true
      end
    end
    return false
  end
end

return M
