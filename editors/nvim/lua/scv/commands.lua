-- The :Scv command: one command, sub-commands with completion.
local compat = require("scv.compat")
local mentions = require("scv.mentions")

local M = {}

-- Byte length of the UTF-8 character that starts at byte `col` of `line`.
local function char_len(line, col)
  local c = line:sub(col):match("^[%z\1-\127\194-\244][\128-\191]*")
  return c and #c or 1
end

--- The context entry for a selection of a buffer: its file URI, the range
--- (LSP positions, UTF-16 columns) and the text itself. `cols` (1-based
--- byte columns of the first and last selected characters) narrows a
--- characterwise selection; without it whole lines are sent.
---@param buf integer
---@param line1 integer
---@param line2 integer
---@param cols table|nil { first, last }
---@return table|nil context, string|nil err
function M.range_context(buf, line1, line2, cols)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    return nil, "scv: the selection's buffer has no file name to send as context"
  end
  local lines = vim.api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  local first_line, last_line = lines[1] or "", lines[#lines] or ""
  local start_byte, end_byte = 0, #last_line -- 0-based start, exclusive end
  if cols then
    start_byte = math.min(cols[1] - 1, #first_line)
    end_byte = math.min(cols[2] - 1 + char_len(last_line, cols[2]), #last_line)
  end
  local text_lines = vim.deepcopy(lines)
  text_lines[#text_lines] = last_line:sub(1, end_byte)
  text_lines[1] = text_lines[1]:sub(start_byte + 1)
  return {
    {
      uri = vim.uri_from_bufnr(buf),
      range = {
        start = { line = line1 - 1, character = compat.utf16_len(first_line:sub(1, start_byte)) },
        ["end"] = { line = line2 - 1, character = compat.utf16_len(last_line:sub(1, end_byte)) },
      },
      text = table.concat(text_lines, "\n"),
    },
  }
end

--- The selection a :[range]Scv command came from: characterwise when the
--- range is the last Visual selection made with `v`, whole lines otherwise.
local function selection_context(o)
  local buf = vim.api.nvim_get_current_buf()
  local cols
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if o.range == 2 and vim.fn.visualmode() == "v" and vs[2] == o.line1 and ve[2] == o.line2 then
    cols = { vs[3], ve[3] }
  end
  return M.range_context(buf, o.line1, o.line2, cols)
end

--- The directory `@` mentions are relative to: the session's workspace.
function M.workspace_root(ctl)
  local st = ctl and ctl.state
  return (st and type(st.cwd) == "string" and st.cwd ~= "") and st.cwd or vim.fn.getcwd()
end

-- @selection: the last Visual selection of the current buffer.
function M.last_selection()
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if vs[2] == 0 or ve[2] == 0 then
    return nil, "scv: @selection: this buffer has no Visual selection"
  end
  local cols = vim.fn.visualmode() == "v" and { vs[3], ve[3] } or nil
  local c, err = M.range_context(vim.api.nvim_get_current_buf(), vs[2], ve[2], cols)
  return c and c[1], err
end

--- Send a prompt with its `@` mentions attached; a lone `@` first asks for
--- a file. A prompt that is only mentions opens the prompt buffer with them.
function M.prompt_with_mentions(ctl, text, context)
  local root = M.workspace_root(ctl)
  local mentioned, bare, err = mentions.parse(text, root, M.last_selection)
  if err then
    ctl:notify(err, vim.log.levels.ERROR)
    return
  end
  vim.list_extend(context, mentioned)
  local function send(t)
    local words_left = (" " .. t):gsub("%s@%S+", ""):match("%S") ~= nil
    ctl:prompt(words_left and t or "", #context > 0 and context or nil)
  end
  if not bare then
    send(text)
    return
  end
  mentions.pick(root, vim.fn.getpos("'<")[2] > 0, function(word)
    if word == nil then
      ctl:notify("scv: nothing picked; the prompt was not sent", vim.log.levels.INFO)
      return
    end
    local more, _, perr = mentions.parse(word, root, M.last_selection)
    if perr then
      ctl:notify(perr, vim.log.levels.ERROR)
      return
    end
    vim.list_extend(context, more)
    local replaced = (" " .. text .. " "):gsub("(%s)@(%s)", function(a, b)
      return a .. word .. b
    end, 1)
    send(replaced:sub(2, -2))
  end)
end

-- Completion of a session id: those the last session list showed.
local function session_ids(ctl)
  local ids = {}
  for _, s in ipairs(ctl and ctl.last_sessions or {}) do
    ids[#ids + 1] = s.sessionId
  end
  return ids
end

-- Each sub-command: run(ctl, rest, cmd_opts) and a one-line description
-- (shown by :Scv without arguments and in :help scv-commands).
M.subcommands = {
  prompt = {
    desc = "send a prompt (no text: open the prompt buffer); a range sends the lines as context; "
      .. "@path attaches a file, @selection the last selection, a lone @ picks one",
    run = function(ctl, rest, o)
      local context = {}
      if o.range and o.range > 0 then
        local err
        context, err = selection_context(o)
        if context == nil then
          ctl:notify(err, vim.log.levels.ERROR)
          return
        end
      end
      M.prompt_with_mentions(ctl, rest or "", context)
    end,
    complete = function(ctl, arglead)
      if arglead:sub(1, 1) == "@" then
        return mentions.complete(arglead, M.workspace_root(ctl))
      end
      return {}
    end,
    complete_any_word = true,
  },
  steer = {
    desc = "add a message to the running turn (reaches the model at its next step)",
    run = function(ctl, rest)
      ctl:steer(rest)
    end,
  },
  model = {
    desc = "switch the session's model (picked from the server's list)",
    run = function(ctl, rest)
      ctl:pick_model(vim.trim(rest or ""))
    end,
    complete = function(ctl)
      local ids = {}
      for _, m in ipairs(ctl and ctl.last_models or {}) do
        ids[#ids + 1] = m.id
      end
      return ids
    end,
  },
  policy = {
    desc = "switch the session's approval policy",
    run = function(ctl, rest)
      ctl:pick_policy(vim.trim(rest or ""))
    end,
    complete = function()
      return vim.deepcopy(require("scv.protocol").approval_policies)
    end,
  },
  diff = {
    desc = "open a file a turn changed as a diff (the one under the cursor in the transcript)",
    run = function(ctl, rest)
      ctl:diff(vim.trim(rest or ""))
    end,
  },
  undo = {
    desc = "revert the turn under the cursor and every later one, after confirmation",
    run = function(ctl)
      ctl:undo()
    end,
  },
  cancel = {
    desc = "cancel the running turn",
    run = function(ctl)
      ctl:cancel()
    end,
  },
  queue = {
    desc = "edit the queue in a buffer; :w sends the changes",
    run = function(ctl)
      ctl:open_queue()
    end,
  },
  pause = {
    desc = "pause the session: queued prompts wait",
    run = function(ctl)
      ctl:pause(true)
    end,
  },
  resume = {
    desc = "resume a paused session",
    run = function(ctl)
      ctl:pause(false)
    end,
  },
  clear = {
    desc = "empty the session's history and queue",
    run = function(ctl)
      ctl:clear()
    end,
  },
  attach = {
    desc = "attach to a session of the server (picked from a list)",
    run = function(ctl, rest)
      ctl:pick_session(vim.trim(rest or ""))
    end,
    complete = session_ids,
  },
  sessions = {
    desc = "open a session, stored or running, with its whole transcript (picked from a list)",
    run = function(ctl, rest)
      ctl:pick_stored_session(vim.trim(rest or ""))
    end,
    complete = session_ids,
  },
  status = {
    desc = "show the server, session, queue and approvals",
    run = function(ctl)
      vim.notify(table.concat(ctl:describe(), "\n"), vim.log.levels.INFO)
    end,
  },
  log = {
    desc = "show the plugin's log",
    run = function(ctl)
      ctl:show_log()
    end,
  },
  open = {
    desc = "show the transcript of the current session",
    run = function(ctl)
      ctl:open()
    end,
  },
  approve = {
    desc = "ask again for approvals that were dismissed",
    run = function(ctl)
      ctl:approve()
    end,
  },
  stop = {
    desc = "stop the server",
    run = function(ctl)
      ctl:stop()
    end,
  },
}

function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

local function usage()
  return "usage: :Scv {" .. table.concat(M.names(), "|") .. "} …"
end

--- The :Scv handler.
function M.run(o)
  local ctl = require("scv").instance()
  if ctl == nil then
    vim.notify("scv: call require('scv').setup() first", vim.log.levels.ERROR)
    return
  end
  local name, rest = (o.args or ""):match("^%s*(%S+)%s*(.-)%s*$")
  if name == nil then
    vim.notify("scv: " .. usage(), vim.log.levels.INFO)
    return
  end
  local sub = M.subcommands[name]
  if sub == nil then
    vim.notify(string.format("scv: unknown sub-command '%s'; %s", name, usage()), vim.log.levels.ERROR)
    return
  end
  sub.run(ctl, rest, o)
end

--- Completion of :Scv arguments.
function M.complete(arglead, cmdline, cursorpos)
  local before = cmdline:sub(1, cursorpos)
  local words = vim.split(vim.trim((before:gsub("^%s*%S*Scv!?", "", 1))), "%s+")
  local done_words = #words
  if before:match("%s$") then
    done_words = done_words + 1
  end
  if words[1] == "" then
    done_words = 1
  end
  if done_words <= 1 then
    return vim.tbl_filter(function(n)
      return n:sub(1, #arglead) == arglead
    end, M.names())
  end
  local sub = M.subcommands[words[1]]
  if sub and sub.complete_any_word then
    return sub.complete(require("scv").instance(), arglead)
  end
  if sub and sub.complete and done_words == 2 then
    return vim.tbl_filter(function(n)
      return n:sub(1, #arglead) == arglead
    end, sub.complete(require("scv").instance(), arglead))
  end
  return {}
end

return M
