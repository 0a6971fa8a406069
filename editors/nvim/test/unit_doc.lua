-- The help file is held to the code: every sub-command and option has its
-- tag, doc/tags is current, and :help scv opens it.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local root = vim.g.scv_test_root

local function tags()
  local set = {}
  for _, line in ipairs(vim.fn.readfile(root .. "/doc/tags")) do
    set[line:match("^(%S+)")] = true
  end
  return set
end

t.test("every sub-command has a :Scv-<name> tag, and every such tag a sub-command", function()
  local have = tags()
  local subs = require("scv.commands").subcommands
  for name in pairs(subs) do
    t.ok(have[":Scv-" .. name], "no help tag :Scv-" .. name)
  end
  for tag in pairs(have) do
    local name = tag:match("^:Scv%-(.+)$")
    if name then
      t.ok(subs[name], "help documents :Scv " .. name .. " but there is no such sub-command")
    end
  end
end)

t.test("every option has a scv-option-<key> tag and appears in the defaults block", function()
  local have = tags()
  local text = table.concat(vim.fn.readfile(root .. "/doc/scv.txt"), "\n")
  for key, shape in pairs(require("scv.config").SHAPE) do
    t.ok(have["scv-option-" .. key], "no help tag scv-option-" .. key)
    if type(shape) == "table" then
      for sub in pairs(shape) do
        t.contains(text, sub .. " =", "option " .. key .. "." .. sub)
      end
    end
  end
end)

t.test("doc/tags is what :helptags makes of doc/scv.txt", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  vim.fn.writefile(vim.fn.readfile(root .. "/doc/scv.txt"), dir .. "/scv.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(dir))
  t.eq(vim.fn.readfile(dir .. "/tags"), vim.fn.readfile(root .. "/doc/tags"), "run :helptags editors/nvim/doc")
end)

t.test(":help scv opens the plugin's help", function()
  vim.cmd("help scv")
  t.ok(vim.api.nvim_buf_get_name(0):find("doc/scv.txt$"), vim.api.nvim_buf_get_name(0))
  vim.cmd("help :Scv-queue")
  t.contains(vim.api.nvim_get_current_line(), "*:Scv-queue*")
end)

t.run()
