-- Unit tests of the version-dependent parts: compat.lua, and the harness's
-- guard against deprecated APIs (which holds every other test to "the plugin
-- uses nothing the running Neovim reports as deprecated").
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local compat = require("scv.compat")

t.test("a vim.deprecate call from the plugin's code is recorded (so the test it happens in fails)", function()
  local chunk = assert(loadstring('vim.deprecate("vim.old_thing", "vim.new_thing", "0.99", "scv-probe")', "@/x/lua/scv/probe.lua"))
  local notify = vim.notify
  vim.notify = function() end
  chunk()
  vim.notify = notify
  t.eq(1, #t.deprecated)
  t.contains(t.deprecated[1], "vim.old_thing (use vim.new_thing) at /x/lua/scv/probe.lua:1")
  t.deprecated = {}
end)

t.test("a deprecated call from outside the plugin is not the plugin's", function()
  local chunk = assert(loadstring('vim.deprecate("vim.other", "vim.else", "0.99", "scv-probe")', "@/x/test/probe.lua"))
  local notify = vim.notify
  vim.notify = function() end
  chunk()
  vim.notify = notify
  t.eq(0, #t.deprecated)
end)

t.test("utf16_len counts UTF-16 code units on every release", function()
  t.eq(3, compat.utf16_len("abc"))
  t.eq(3, compat.utf16_len("é😀"), "é is one unit, 😀 a surrogate pair")
end)

t.run()
