-- Integration (issue 14) against the real `scv lsp`: `@` mentions attach
-- workspace files and the selection (the server echoes them in
-- scv/turn/started), the lone `@` picker, completion from a bounded walk and
-- from git ls-files, and the transcript as a tree-sitter Markdown buffer.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")
local commands = require("scv.commands")

it.replay({ { text = "Noted." }, { stop = true } })
it.write_file(it.workspace .. "/notes.md", "# Notes\n")
it.write_file(it.workspace .. "/code.txt", "one\ntwo\nthree\n")
vim.fn.mkdir(it.workspace .. "/build", "p")
it.write_file(it.workspace .. "/build/out.txt", "generated\n")
local ctl = it.setup()

local function count(buf, needle)
  local n = 0
  for _ in it.text(buf):gmatch(vim.pesc(needle)) do
    n = n + 1
  end
  return n
end

-- waits for the n-th answered turn
local function wait_turns(n)
  local buf
  t.wait(it.TIMEOUT_MS, function()
    buf = ctl.state and it.buf_by_name("scv://" .. ctl.state.session_id)
    return buf ~= nil and count(buf, "Noted.") >= n and ctl.state.run == "idle"
  end, n .. " answered turns")
  return buf
end

t.test("@path attaches the file; the server's turn/started lists it under the prompt", function()
  vim.cmd("Scv prompt explain @notes.md, please")
  local buf = wait_turns(1)
  t.contains(it.text(buf), "## You\nexplain @notes.md, please\n_attached: notes.md_")
end)

t.test("@selection attaches the last Visual selection with its range", function()
  vim.cmd("tabnew " .. it.workspace .. "/code.txt")
  vim.cmd("normal! 2GVj\27")
  vim.cmd("Scv prompt what is @selection")
  local buf = wait_turns(2)
  t.contains(it.text(buf), "## You\nwhat is @selection\n_attached: code.txt:2-3_")
  vim.cmd("tabclose")
end)

t.test("a lone @ opens a file picker; the pick replaces it and is attached", function()
  local prompts = it.stub_select(function()
    return "@code.txt"
  end)
  vim.cmd("Scv prompt summarize @ briefly")
  local buf = wait_turns(3)
  t.eq("scv.mention", prompts[1].opts.kind)
  t.ok(vim.tbl_contains(prompts[1].items, "@notes.md"), "workspace files are offered")
  t.contains(it.text(buf), "## You\nsummarize @code.txt briefly\n_attached: code.txt_")
end)

t.test("a prompt of mentions only opens the prompt buffer with them; @path written there attaches too", function()
  vim.cmd("Scv prompt @notes.md")
  t.eq("scv://prompt", vim.api.nvim_buf_get_name(0))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "compare with @code.txt and @notes.md" })
  vim.cmd("write")
  local buf = wait_turns(4)
  t.contains(it.text(buf), "## You\ncompare with @code.txt and @notes.md\n_attached: notes.md, code.txt_")
end)

t.test("@ completion: a bounded walk outside git, git ls-files (honouring .gitignore) inside", function()
  local function complete(lead)
    local line = "Scv prompt explain " .. lead
    return commands.complete(lead, line, #line)
  end
  t.eq({ "@notes.md" }, complete("@note"))
  t.eq({ "@build/out.txt" }, complete("@out"), "a substring matches too")
  t.eq({ "@selection" }, complete("@sel"))
  it.write_file(it.workspace .. "/.gitignore", "build/\n")
  vim.fn.system({ "git", "-C", it.workspace, "init", "-q" })
  t.eq(0, vim.v.shell_error, "git init")
  t.eq({}, complete("@out"), "ignored by .gitignore")
  t.eq({ "@notes.md" }, complete("@note"), "untracked files are offered")
  t.eq({}, commands.complete("no", "Scv prompt explain no", 21), "only @ words complete")
end)

t.test("the transcript is a Markdown buffer, highlighted by tree-sitter where a parser exists", function()
  local buf = wait_turns(4)
  t.eq("markdown", vim.bo[buf].filetype)
  local lang = vim.treesitter and vim.treesitter.language
  local has_parser = false
  if lang ~= nil and lang.add ~= nil then
    local ok, added = pcall(lang.add, "markdown")
    has_parser = ok and added ~= nil and added ~= false
  end
  if has_parser then
    t.ok(vim.treesitter.highlighter.active[buf] ~= nil, "tree-sitter highlights the transcript")
  else
    io.stdout:write("  (no tree-sitter markdown parser in this Neovim: regex syntax)\n")
  end
end)

t.run()
