-- Options of require("scv").setup(): defaults, validation and merging.
-- Pure: no editor state is touched.
local protocol = require("scv.protocol")

local M = {}

-- How long the transcript buffer collects deltas before one redraw.
M.FLUSH_INTERVAL_MS = 40
-- Lines kept by :Scv log.
M.MAX_LOG_LINES = 2000
-- Restarts of a server that exited on its own before the plugin gives up.
M.MAX_RESTARTS = 3
-- What a prompt sent while a turn runs does: ask, steer the turn, or queue.
M.PROMPT_WHILE_RUNNING = { "ask", "steer", "queue" }

function M.defaults()
  return {
    cmd = { "scv", "lsp" },
    cmd_env = nil,
    daemon = "auto",
    approval_policy = nil,
    model = nil,
    transcript = {
      -- how :Scv prompt shows the transcript: "vsplit", "split", "tab",
      -- "current" or false (never opened automatically)
      open = "vsplit",
      -- keep the cursor on the last line while text streams in
      follow = true,
    },
    flush_interval_ms = M.FLUSH_INTERVAL_MS,
    -- a prompt sent while a turn runs: "ask" (steer or queue), "steer", "queue"
    prompt_while_running = "ask",
    keymaps = {
      -- buffer-local maps in the transcript buffer; false disables one
      transcript = { cancel = "<C-c>", prompt = "i", queue = "gq", close = "q", diff = "gd", undo = "gu" },
      -- buffer-local maps in the prompt input buffer
      prompt = { submit = "<C-s>" },
      -- global maps: lhs → sub-command, e.g. { ["<leader>ap"] = "prompt" }
      global = {},
    },
  }
end

local function one_of(list)
  local set = {}
  for _, v in ipairs(list) do
    set[v] = true
  end
  return set
end

local open_modes = one_of({ "vsplit", "split", "tab", "current" })

-- The keys each option table accepts; a table marks a nested option table.
local SHAPE = {
  cmd = "list",
  cmd_env = "map",
  daemon = "value",
  approval_policy = "value",
  model = "value",
  flush_interval_ms = "value",
  prompt_while_running = "value",
  transcript = { open = "value", follow = "value" },
  keymaps = {
    transcript = { cancel = "value", prompt = "value", queue = "value", close = "value", diff = "value", undo = "value" },
    prompt = { submit = "value" },
    global = "map",
  },
}

M.SHAPE = SHAPE

-- Unknown keys and tables where values belong are errors naming the key.
local function check_shape(opts, shape, path)
  for k, v in pairs(opts) do
    local key = path .. tostring(k)
    local want = shape[k]
    if want == nil then
      error(string.format("scv.setup: unknown option '%s'", key), 0)
    end
    if type(want) == "table" then
      if type(v) ~= "table" then
        error(string.format("scv.setup: option '%s' must be a table, got %s", key, type(v)), 0)
      end
      check_shape(v, want, key .. ".")
    end
  end
end

local function expect(key, value, ok, want)
  if not ok then
    error(string.format("scv.setup: option '%s' must be %s, got %s", key, want, vim.inspect(value)), 0)
  end
end

--- Merge user options over the defaults; errors name the bad key.
---@param opts table|nil
---@return table
function M.resolve(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error(string.format("scv.setup: options must be a table, got %s", type(opts)), 0)
  end
  local defaults = M.defaults()
  check_shape(opts, SHAPE, "")
  local o = vim.tbl_deep_extend("force", defaults, opts)
  -- a list option is replaced, never merged element-wise
  if opts.cmd ~= nil then
    o.cmd = opts.cmd
  end
  local cmd_ok = type(o.cmd) == "table" and #o.cmd > 0
  if cmd_ok then
    for _, part in ipairs(o.cmd) do
      cmd_ok = cmd_ok and type(part) == "string" and part ~= ""
    end
  end
  expect("cmd", o.cmd, cmd_ok, "a non-empty list of strings")
  expect("cmd_env", o.cmd_env, o.cmd_env == nil or type(o.cmd_env) == "table", "a table of environment variables")
  expect("daemon", o.daemon, one_of(protocol.daemon_modes)[o.daemon], "one of auto|never|required")
  expect(
    "approval_policy",
    o.approval_policy,
    o.approval_policy == nil or one_of(protocol.approval_policies)[o.approval_policy],
    "nil or one of never|on-risk|always|auto"
  )
  expect("model", o.model, o.model == nil or (type(o.model) == "string" and o.model ~= ""), "nil or a model name")
  expect(
    "transcript.open",
    o.transcript.open,
    o.transcript.open == false or open_modes[o.transcript.open],
    "one of vsplit|split|tab|current or false"
  )
  expect("transcript.follow", o.transcript.follow, type(o.transcript.follow) == "boolean", "a boolean")
  expect(
    "flush_interval_ms",
    o.flush_interval_ms,
    type(o.flush_interval_ms) == "number" and o.flush_interval_ms >= 1 and o.flush_interval_ms <= 1000,
    "a number of milliseconds from 1 to 1000"
  )
  expect(
    "prompt_while_running",
    o.prompt_while_running,
    one_of(M.PROMPT_WHILE_RUNNING)[o.prompt_while_running],
    "one of ask|steer|queue"
  )
  for group, maps in pairs(o.keymaps) do
    for name, lhs in pairs(maps) do
      local key = string.format("keymaps.%s.%s", group, name)
      expect(key, lhs, lhs == false or (type(lhs) == "string" and lhs ~= ""), "a key sequence or false")
    end
  end
  return o
end

--- The command line that starts the server: the configured command with the
--- daemon mode added unless the command already chooses one.
---@param o table resolved options
---@return string[] cmd, table|nil env
function M.server_cmd(o)
  local cmd = vim.deepcopy(o.cmd)
  local has_flag = false
  for _, part in ipairs(cmd) do
    if part:match("^%-%-daemon") or part == "--no-daemon" then
      has_flag = true
    end
  end
  if not has_flag then
    cmd[#cmd + 1] = "--daemon=" .. o.daemon
  end
  local env = o.cmd_env and vim.deepcopy(o.cmd_env) or nil
  if o.daemon == "never" then
    -- the environment switch the protocol documents, for servers that predate the flag
    env = env or {}
    env.SCV_NO_DAEMON = env.SCV_NO_DAEMON or "1"
  end
  return cmd, env
end

return M
