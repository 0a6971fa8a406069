-- Helpers of the integration tests: the real scv binary (from $SCV_BIN, set
-- by run.sh), a replay script in the test's SCV_HOME, a stubbed
-- vim.ui.select and vim.notify, and bounded waits.
local M = {}

M.TIMEOUT_MS = 15000

M.bin = assert(os.getenv("SCV_BIN"), "SCV_BIN is not set (run test/run.sh)")
M.home = assert(os.getenv("SCV_HOME"), "SCV_HOME is not set (run test/run.sh)")
M.workspace = assert(os.getenv("SCV_TEST_WORKSPACE"), "SCV_TEST_WORKSPACE is not set (run test/run.sh)")

local function write_file(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end
M.write_file = write_file

function M.read_file(path)
  local f = io.open(path, "r")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

--- Configure the replay provider with these script lines (tables, encoded
--- as JSON lines); extra is more TOML for the [provider] table and after.
function M.replay(lines, extra)
  local out = {}
  for _, l in ipairs(lines) do
    out[#out + 1] = vim.json.encode(l)
  end
  local script = M.home .. "/script.jsonl"
  write_file(script, table.concat(out, "\n") .. "\n")
  write_file(M.home .. "/config.toml", string.format('[provider]\nkind = "replay"\nreplay_script = %q\n', script) .. (extra or ""))
end

--- require("scv").setup() pointed at the test binary, never a daemon. A
--- prompt sent while a turn runs is queued without asking unless a test
--- asks for "ask" (the builtin picker would block a test that raced a turn).
function M.setup(extra)
  local opts = vim.tbl_deep_extend("force", {
    cmd = { M.bin, "lsp" },
    daemon = "never",
    prompt_while_running = "queue",
    transcript = { open = "current" },
  }, extra or {})
  require("scv").setup(opts)
  return require("scv").instance()
end

--- require("scv").status() without the usage part (" · ctx N% · N tok"),
--- which servers with scv/session/usage append.
function M.status()
  return (require("scv").status():gsub(" · ctx %d+%%", ""):gsub(" · [%d.]+[kM]? tok$", ""))
end

--- Collect vim.notify messages (still forwarded, without raising errors).
function M.capture_notify()
  local seen = {}
  vim.notify = function(msg, level)
    seen[#seen + 1] = { msg = msg, level = level }
    io.stdout:write("  notify: " .. tostring(msg) .. "\n")
  end
  return seen
end

function M.notified(seen, needle)
  for _, n in ipairs(seen) do
    if tostring(n.msg):find(needle, 1, true) then
      return n
    end
  end
  return nil
end

--- Replace vim.ui.select. `answer(items, opts)` returns the label to choose,
--- nil to cancel, or false to hold the callback (kept in prompts[i].cb).
function M.stub_select(answer)
  local prompts = {}
  vim.ui.select = function(items, opts, cb)
    local p = { items = items, opts = opts, cb = cb }
    prompts[#prompts + 1] = p
    p.float_lines = {}
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        local b = vim.api.nvim_win_get_buf(w)
        p.float_lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        p.float_win = w
      end
    end
    local label = answer(items, opts, p)
    if label == false then
      return
    end
    if label == nil then
      cb(nil, nil)
      return
    end
    for i, item in ipairs(items) do
      if (opts.format_item and opts.format_item(item) or tostring(item)) == label then
        cb(item, i)
        return
      end
    end
    error("stub select: no item labelled " .. tostring(label))
  end
  return prompts
end

function M.buf_by_name(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == name then
      return b
    end
  end
end

function M.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

function M.text(buf)
  return table.concat(M.lines(buf), "\n")
end

--- Wait until the current session's transcript buffer contains needle.
function M.wait_transcript(t, ctl, needle, timeout)
  local buf
  t.wait(timeout or M.TIMEOUT_MS, function()
    local st = ctl.state
    buf = st and M.buf_by_name("scv://" .. st.session_id)
    return buf ~= nil and M.text(buf):find(needle, 1, true) ~= nil
  end, "transcript to contain " .. vim.inspect(needle))
  return buf
end

--- Let every callback scheduled so far run (vim.schedule runs in order).
function M.drain(t)
  local done = false
  vim.schedule(function()
    done = true
  end)
  t.wait(M.TIMEOUT_MS, function()
    return done
  end, "scheduled callbacks")
end

--- Run :checkhealth scv and return its report in one form whatever the
--- Neovim: 0.7 writes "- OK: text" and "- INFO: text", 0.10+ "- OK text" and
--- a bare "- text" for info. Each item becomes "LEVEL: text" on its own line.
function M.health_report()
  vim.cmd("checkhealth scv")
  local out = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local item = line:match("^%s*%- (.*)$")
    if item then
      local level, rest = item:match("^(%u+):? (.*)$")
      if level ~= "OK" and level ~= "INFO" and level ~= "WARNING" and level ~= "ERROR" then
        level, rest = "INFO", item
      end
      out[#out + 1] = level .. ": " .. rest
    else
      out[#out + 1] = line
    end
  end
  return table.concat(out, "\n")
end

--- The LSP clients attached to a buffer (get_clients from 0.10; the older
--- call is deprecated there).
function M.buf_clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  return vim.lsp.buf_get_clients(buf)
end

--- A direct request through the plugin's connection (as another client or
--- the test itself would send it); waits for the answer.
function M.request(t, ctl, method, params)
  local done, err, result = false, nil, nil
  ctl:request(method, params, function(e, r)
    done, err, result = true, e, r
  end)
  t.wait(M.TIMEOUT_MS, function()
    return done
  end, "answer to " .. method)
  return err, result
end

return M
