-- Integration: turns against the real `scv lsp` with the replay provider —
-- the transcript buffer, approvals through a stubbed vim.ui.select, context
-- from a range, the prompt buffer, re-attach.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")

it.replay({
  { text = "Hello " },
  { text = "from replay" },
  { tool_call = { id = "c1", name = "edit_file", arguments = { path = "notes.md", old = "a", new = "b" } } },
  { usage = { input_tokens = 3, output_tokens = 4 } },
  { stop = true },
  { text = "Edited." },
  { usage = { input_tokens = 5, output_tokens = 6 } },
  { stop = true },
})
local notes = it.workspace .. "/notes.md"
it.write_file(notes, "a\n")
local seen = it.capture_notify()
local ctl = it.setup()

local function count(buf, needle)
  local n = 0
  for _ in it.text(buf):gmatch(vim.pesc(needle)) do
    n = n + 1
  end
  return n
end

-- waits for the n-th finished turn in the transcript
local function wait_turns(n)
  local buf
  t.wait(it.TIMEOUT_MS, function()
    buf = ctl.state and it.buf_by_name("scv://" .. ctl.state.session_id)
    return buf ~= nil and count(buf, "_usage: ") >= n and ctl.state.run == "idle"
  end, n .. " finished turns")
  return buf
end

local function labels(p)
  return vim.tbl_map(function(i)
    return p.opts.format_item(i)
  end, p.items)
end

-- The (not floating) windows of the current tab page: buffer name, lines, 'diff'.
local function tab_windows()
  local out = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(w).relative == "" then
      local b = vim.api.nvim_win_get_buf(w)
      out[#out + 1] = { name = vim.api.nvim_buf_get_name(b), lines = it.lines(b), diff = vim.wo[w].diff, buf = b }
    end
  end
  return out
end

t.test("a full turn streams into scv://<id>; the edit is approved through vim.ui.select beside its diff", function()
  local prompts, split
  prompts = it.stub_select(function()
    if #prompts == 1 then
      return "Open diff split (current ↔ proposed)"
    end
    -- asked again, with the split open
    split = tab_windows()
    return "Approve"
  end)
  vim.cmd("Scv prompt fix the notes")
  local buf = wait_turns(1)
  t.eq("markdown", vim.bo[buf].filetype)
  t.eq("scv://" .. ctl.state.session_id, vim.api.nvim_buf_get_name(buf))
  local text = it.text(buf)
  t.contains(text, "## You\nfix the notes")
  t.contains(text, "Hello from replay")
  t.contains(text, "▸ edit_file [c1] — done")
  t.contains(text, "│ decision: approve")
  t.contains(text, "Edited.")
  t.contains(text, "_usage: 8 input · 10 output tokens · 2 steps_")
  t.eq("b\n", it.read_file(notes), "the approved edit ran")
  t.eq(2, #prompts, "asked again after the split opened")
  -- notes.md fits the rule edit:notes.md, so "Always allow" is offered too.
  t.eq({ "Approve", "Deny", "Approve for session", "Always allow edit:notes.md", "Open diff split (current ↔ proposed)" }, labels(prompts[1]))
  local sid = ctl.state.session_id
  t.eq(2, #split, "the split is two windows")
  t.ok(split[1].name:find("scv://approval/.*/current/notes.md$") ~= nil, split[1].name)
  t.ok(split[2].name:find("scv://approval/.*/proposed/notes.md$") ~= nil, split[2].name)
  t.eq({ "a" }, split[1].lines, "current: the file on disk")
  t.eq({ "b" }, split[2].lines, "proposed: the edit applied")
  t.eq({ true, true }, { split[1].diff, split[2].diff }, ":diffthis in both")
  t.wait(it.TIMEOUT_MS, function()
    return not vim.api.nvim_buf_is_valid(split[1].buf) and not vim.api.nvim_buf_is_valid(split[2].buf)
  end, "the split to close with the approval")
  t.eq(1, #vim.api.nvim_list_tabpages(), "its tab page closed")
  t.eq("scv://" .. sid, vim.api.nvim_buf_get_name(0), "back in the transcript")
  t.contains(prompts[1].opts.prompt, "edit_file")
  local diff = table.concat(prompts[1].float_lines, "\n")
  t.contains(diff, "-a")
  t.contains(diff, "+b")
  t.wait(it.TIMEOUT_MS, function()
    return not vim.api.nvim_win_is_valid(prompts[1].float_win)
  end, "the diff float to close")
  t.eq("idle", it.status())
end)

t.test("the builtin vim.ui.select (inputlist) takes the answer from typed keys", function()
  vim.ui.select = require("vim.ui").select
  it.write_file(notes, "a\n")
  -- typeahead: "1" + Enter picks the first choice, Approve
  vim.api.nvim_feedkeys("1\r", "t", false)
  vim.cmd("Scv prompt with the builtin picker")
  wait_turns(2)
  t.eq("b\n", it.read_file(notes), "approved through inputlist")
end)

t.test("tool calls are folded in the transcript window", function()
  local buf = wait_turns(1)
  local win = vim.fn.win_findbuf(buf)[1]
  t.ok(win, "a window shows the transcript")
  local header
  for i, l in ipairs(it.lines(buf)) do
    if l:find("^▸ edit_file") then
      header = i
      break
    end
  end
  t.ok(header, "tool header line")
  vim.api.nvim_win_call(win, function()
    t.eq(1, vim.fn.foldlevel(header + 1), "the tool body is in a fold")
    t.eq(header, vim.fn.foldclosed(header + 1), "and the fold is closed")
  end)
end)

t.test("deny: the tool does not run and the transcript says so", function()
  it.write_file(notes, "a\n")
  it.stub_select(function()
    return "Deny"
  end)
  vim.cmd("Scv prompt try again")
  local buf = wait_turns(3)
  t.contains(it.text(buf), "│ decision: deny")
  t.eq("a\n", it.read_file(notes), "a denied edit changes nothing")
end)

t.test("approve for session: later calls of the tool are not asked", function()
  local prompts = it.stub_select(function()
    return "Approve for session"
  end)
  vim.cmd("Scv prompt third")
  wait_turns(4)
  t.eq(1, #prompts)
  t.eq("b\n", it.read_file(notes))
  it.write_file(notes, "a\n")
  vim.cmd("Scv prompt fourth")
  wait_turns(5)
  t.eq(1, #prompts, "no second prompt")
  t.eq("b\n", it.read_file(notes), "the edit ran without asking")
end)

t.test("a range sends the selected lines with their file URI as context", function()
  local sent
  local orig = ctl.request
  ctl.request = function(self, method, params, cb)
    if method == "scv/turn/start" then
      sent = params
    end
    return orig(self, method, params, cb)
  end
  it.write_file(it.workspace .. "/code.txt", "one\ntwo\nthree\n")
  local transcript_win = vim.api.nvim_get_current_win()
  vim.cmd("split " .. vim.fn.fnameescape(it.workspace .. "/code.txt"))
  vim.cmd("2,3Scv prompt explain these")
  ctl.request = orig
  wait_turns(6)
  t.ok(sent, "turn/start was sent")
  t.eq("explain these", sent.prompt)
  t.eq(1, #sent.context)
  local c = sent.context[1]
  t.eq(vim.uri_from_fname(it.workspace .. "/code.txt"), c.uri)
  t.eq({ start = { line = 1, character = 0 }, ["end"] = { line = 2, character = 5 } }, c.range)
  t.eq("two\nthree", c.text)
  t.eq(nil, next(it.buf_clients(0)), "the file buffer has no scv client attached")
  vim.cmd("close")
  vim.api.nvim_set_current_win(transcript_win)
end)

t.test(":Scv prompt without text opens a prompt buffer that :w sends", function()
  vim.cmd("Scv prompt")
  local buf = vim.api.nvim_get_current_buf()
  t.eq("scv://prompt", vim.api.nvim_buf_get_name(buf))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "a prompt", "on two lines" })
  vim.cmd("write")
  local tbuf = wait_turns(7)
  t.ok(not vim.api.nvim_buf_is_valid(buf), "the prompt buffer is gone once sent")
  t.contains(it.text(tbuf), "## You\na prompt\non two lines")
end)

t.test("re-attach restores the transcript, from this editor's state or from the server's replay", function()
  local sid = ctl.state.session_id
  local buf = wait_turns(7)
  local before = count(buf, "Hello from replay")
  t.eq(7, before)
  -- the buffer is wiped; attaching draws it again without repeating events
  vim.cmd("bwipeout! " .. buf)
  vim.cmd("Scv attach " .. sid)
  buf = wait_turns(7)
  t.eq(7, count(buf, "Hello from replay"))
  -- a new editor state (as after a restart): everything comes from the replay ring
  vim.cmd("bwipeout! " .. buf)
  ctl.states[sid] = nil
  ctl.views[sid]:dispose()
  ctl.views[sid] = nil
  ctl.state = nil
  vim.cmd("Scv attach " .. sid)
  buf = wait_turns(7)
  t.eq(7, count(buf, "Hello from replay"))
  t.contains(it.text(buf), "│ decision: deny")
  t.eq(7, count(buf, "▸ edit_file [c1]"), "one tool block per turn")
  t.eq("idle", it.status())
end)

t.test(":Scv attach without an id picks from scv/session/list", function()
  local prompts = it.stub_select(function(items, opts)
    return opts.format_item(items[1])
  end)
  vim.cmd("Scv attach")
  t.wait(it.TIMEOUT_MS, function()
    return #prompts == 1
  end, "the session picker")
  t.contains(prompts[1].opts.format_item(prompts[1].items[1]), ctl.state.session_id)
end)

t.test(":Scv sessions opens a session with its whole transcript; prompts come from the server", function()
  local sid = ctl.state.session_id
  local old = ctl.states[sid]
  local prompts = it.stub_select(function(items, opts)
    for _, s in ipairs(items) do
      if s.sessionId == sid then
        return opts.format_item(s)
      end
    end
  end)
  vim.cmd("Scv sessions")
  t.wait(it.TIMEOUT_MS, function()
    return #prompts == 1
  end, "the session picker")
  local row
  for _, s in ipairs(prompts[1].items) do
    if s.sessionId == sid then
      row = prompts[1].opts.format_item(s)
    end
  end
  -- today's server lists no title nor turns: the first prompt this editor drew labels the row
  t.eq("fix the notes  idle · ", row:sub(1, #"fix the notes  idle · "))
  t.eq("  " .. ctl.state.cwd, row:sub(-#ctl.state.cwd - 2))
  t.wait(it.TIMEOUT_MS, function()
    local st = ctl.states[sid]
    return st ~= old and ctl.state == st and st.seen_seq >= old.seen_seq
  end, "the fresh state of the full replay")
  local buf = wait_turns(7)
  local text = it.text(buf)
  t.eq(7, count(buf, "Hello from replay"))
  t.eq(0, count(buf, "prompt sent from another client"), "every prompt came with scv/turn/started")
  t.contains(text, "## You\nfix the notes")
  t.contains(text, "## You\na prompt\non two lines")
  t.eq({ "sessions" }, require("scv.commands").complete("ses", "Scv ses", 7))
  t.eq({ sid }, require("scv.commands").complete("", "Scv sessions ", 13))
end)

t.test(":Scv status, completion and a second setup()", function()
  local desc = table.concat(ctl:describe(), "\n")
  t.contains(desc, "protocol 1")
  t.contains(desc, "state: idle")
  t.eq({ "pause", "policy", "prompt" }, require("scv.commands").complete("p", "Scv p", 5))
  t.eq({ "on-risk" }, require("scv.commands").complete("o", "Scv policy o", 12))
  t.eq(false, require("scv").setup({}))
  t.ok(it.notified(seen, "setup() was already called"))
end)

t.test(":checkhealth vim.deprecated names no call from the plugin (0.10+)", function()
  if vim.fn.has("nvim-0.10") == 0 then
    io.stdout:write("  (this Neovim has no :checkhealth vim.deprecated)\n")
    return
  end
  vim.cmd("checkhealth vim.deprecated")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  t.ok(not text:find("/lua/scv/", 1, true), "deprecated calls from the plugin:\n" .. text)
  t.ok(not text:find("/test/", 1, true), "deprecated calls from the tests:\n" .. text)
end)

t.run()
