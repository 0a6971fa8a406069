-- Unit tests of the buffers without a server: batched transcript flushes,
-- the queue buffer's write plan, the range context, framing.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local transcript = require("scv.transcript")
local transcript_view = require("scv.transcript_view")
local framing = require("scv.framing")

t.test("many changes before the timer fires cost one flush", function()
  local model = transcript.new()
  local view = transcript_view.new({ session_id = "unit-1", model = model, interval_ms = 20, follow = true })
  local base = view.flushes
  model:turn("t", "p")
  for i = 1, 5000 do
    model:delta("t", "w" .. i .. " ")
    view:schedule()
  end
  t.wait(2000, function()
    return view.flushes > base
  end, "the flush")
  t.eq(base + 1, view.flushes)
  t.eq(model:all_lines(), vim.api.nvim_buf_get_lines(view.buf, 0, -1, false))
  view:dispose()
end)

t.test("a window at the end follows the stream; the buffer is read-only markdown", function()
  local model = transcript.new()
  local view = transcript_view.new({ session_id = "unit-2", model = model, interval_ms = 5, follow = true })
  local win = view:show("current")
  t.eq("markdown", vim.bo[view.buf].filetype)
  t.eq(false, vim.bo[view.buf].modifiable)
  t.eq("expr", vim.wo[win].foldmethod)
  for i = 1, 50 do
    model:delta("t", "line " .. i .. "\n")
  end
  view:flush()
  t.eq(vim.api.nvim_buf_line_count(view.buf), vim.api.nvim_win_get_cursor(win)[1])
  -- wiping the buffer and showing again draws everything anew
  local old = view.buf
  vim.cmd("bwipeout! " .. old)
  view:show("current")
  t.ok(view.buf ~= old)
  t.eq(model:all_lines(), vim.api.nvim_buf_get_lines(view.buf, 0, -1, false))
  view:dispose()
end)

t.test("range context carries URI, UTF-16 range and text", function()
  local path = vim.fn.tempname() .. ".txt"
  vim.fn.writefile({ "alpha", "bété", "gamma" }, path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local ctx = require("scv.commands").range_context(0, 1, 2)
  t.eq(vim.uri_from_fname(path), ctx[1].uri)
  t.eq({ start = { line = 0, character = 0 }, ["end"] = { line = 1, character = 4 } }, ctx[1].range)
  t.eq("alpha\nbété", ctx[1].text)
  -- characterwise: from "ph" of alpha to "é" of bété (a two-byte last character)
  ctx = require("scv.commands").range_context(0, 1, 2, { 4, 5 })
  t.eq({ start = { line = 0, character = 3 }, ["end"] = { line = 1, character = 4 } }, ctx[1].range)
  t.eq("ha\nbété", ctx[1].text)
  ctx = require("scv.commands").range_context(0, 2, 2, { 2, 2 })
  t.eq("é", ctx[1].text)
  t.eq({ start = { line = 1, character = 1 }, ["end"] = { line = 1, character = 2 } }, ctx[1].range)
  -- a Visual selection made with v sends exactly its characters
  local sent
  local ctl = { notify = function() end, prompt = function(_, text, c)
    sent = { text = text, context = c }
  end }
  vim.api.nvim_win_set_cursor(0, { 1, 1 })
  vim.cmd("normal! vj\27")
  require("scv.commands").subcommands.prompt.run(ctl, "why", { range = 2, line1 = 1, line2 = 2 })
  t.eq("why", sent.text)
  t.eq("lpha\nbé", sent.context[1].text)
  vim.cmd("enew")
  local none, err = require("scv.commands").range_context(0, 1, 1)
  t.eq(nil, none)
  t.contains(err, "no file name")
end)

t.test("framing decodes split and joined frames and refuses a bad header", function()
  local a = framing.encode({ jsonrpc = "2.0", id = 1, result = { x = "é" } })
  local b = framing.encode({ jsonrpc = "2.0", method = "m" })
  local d = framing.decoder()
  local all = a .. b
  local got = {}
  for i = 1, #all, 7 do
    local msgs, err = d:feed(all:sub(i, i + 6))
    t.eq(nil, err)
    vim.list_extend(got, msgs)
  end
  t.eq(2, #got)
  t.eq("é", got[1].result.x)
  t.eq("m", got[2].method)
  local _, err = framing.decoder():feed("Bogus: 1\r\n\r\n{}")
  t.contains(err, "without Content-Length")
end)

t.test("config: the daemon mode becomes a flag unless the command has one", function()
  local config = require("scv.config")
  local cmd, env = config.server_cmd(config.resolve({ cmd = { "scv", "lsp" }, daemon = "never" }))
  t.eq({ "scv", "lsp", "--daemon=never" }, cmd)
  t.eq("1", env.SCV_NO_DAEMON)
  cmd = config.server_cmd(config.resolve({ cmd = { "scv", "lsp", "--daemon=required" } }))
  t.eq({ "scv", "lsp", "--daemon=required" }, cmd)
  local o = config.resolve({ transcript = { open = "split" } })
  t.eq(true, o.transcript.follow, "nested defaults survive a partial table")
  t.eq("<C-c>", o.keymaps.transcript.cancel)
end)

t.test("where vim.lsp.start exists it is used, attached to nothing but the scratch anchor", function()
  local compat = require("scv.compat")
  local user_buf = vim.api.nvim_get_current_buf()
  local anchor = vim.api.nvim_create_buf(false, true)
  local seen
  local had = vim.lsp.start
  vim.lsp.start = function(config, opts)
    seen = { config = config, opts = opts, current = vim.api.nvim_get_current_buf() }
    return 42
  end
  local id = compat.start_client({ name = "scv", cmd = { "scv", "lsp" } }, function()
    return anchor
  end)
  vim.lsp.start = had
  t.eq(42, id)
  t.eq(false, seen.opts.attach, "0.11+: attach = false")
  t.eq(anchor, seen.opts.bufnr, "0.9-0.10: the anchor buffer")
  t.eq(anchor, seen.current, "0.8.0: the anchor is current during the call")
  t.eq(false, seen.opts.reuse_client(), "never reuses another client")
  t.eq(user_buf, vim.api.nvim_get_current_buf(), "the user's buffer is current again")
end)

t.run()
