-- A small test runner for headless Neovim. A test file does
--   local t = dofile(<dir> .. "/harness.lua")
--   t.test("name", function() ... end)
--   t.run()
-- run() prints one line per test and a closing "N passed, N failed" line,
-- then quits Neovim: exit 0 when every test passed, non-zero otherwise
-- (:cquit), so a failure can never look like success.
local M = {}

local tests = {}

-- Every vim.deprecate call made from the plugin's own code (a frame in
-- lua/scv/) is recorded here; a test during which one happened fails, so the
-- plugin uses no API the running Neovim reports as deprecated.
M.deprecated = {}
local real_deprecate = vim.deprecate
vim.deprecate = function(name, alternative, ...)
  for level = 2, 40 do
    local info = debug.getinfo(level, "Sl")
    if info == nil then
      break
    end
    if info.source:find("/lua/scv/", 1, true) then
      M.deprecated[#M.deprecated + 1] =
        string.format("%s (use %s) at %s:%d", tostring(name), tostring(alternative), info.short_src, info.currentline)
      break
    end
  end
  -- 0.7 has no vim.deprecate of its own (nothing to report there)
  if real_deprecate then
    return real_deprecate(name, alternative, ...)
  end
end

function M.test(name, fn)
  tests[#tests + 1] = { name = name, fn = fn }
end

local function fmt(v)
  return vim.inspect(v)
end

function M.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(string.format("%sexpected %s, got %s", what and (what .. ": ") or "", fmt(expected), fmt(actual)), 2)
  end
end

function M.ok(cond, what)
  if not cond then
    error(what or "expected a true value", 2)
  end
end

function M.contains(haystack, needle, what)
  if type(haystack) == "table" then
    haystack = table.concat(haystack, "\n")
  end
  if not tostring(haystack):find(needle, 1, true) then
    error(string.format("%sexpected to find %q in:\n%s", what and (what .. ": ") or "", needle, haystack), 2)
  end
end

--- Wait for cond() to hold, at most timeout_ms; fails the test otherwise.
function M.wait(timeout_ms, cond, what)
  local ok = vim.wait(timeout_ms, cond, 10)
  if not ok then
    error(string.format("timed out after %d ms waiting for %s", timeout_ms, what or "a condition"), 2)
  end
end

local function write(line)
  io.stdout:write(line .. "\n")
  io.stdout:flush()
end

function M.run()
  local passed, failed = 0, 0
  local filter = os.getenv("SCV_TEST_FILTER")
  for _, t in ipairs(tests) do
    if filter == nil or filter == "" or t.name:find(filter, 1, true) then
      M.deprecated = {}
      local ok, err = xpcall(t.fn, debug.traceback)
      if ok and #M.deprecated > 0 then
        ok, err = false, "the plugin called deprecated APIs:\n  " .. table.concat(M.deprecated, "\n  ")
      end
      if ok then
        passed = passed + 1
        write("ok   " .. t.name)
      else
        failed = failed + 1
        write("FAIL " .. t.name .. "\n" .. tostring(err))
      end
      if M.after_each then
        pcall(M.after_each)
      end
    end
  end
  if #M.deprecated > 0 then
    -- a callback that ran after the last test
    failed = failed + 1
    write("FAIL the plugin called deprecated APIs after the last test:\n  " .. table.concat(M.deprecated, "\n  "))
  end
  write(string.format("%d passed, %d failed", passed, failed))
  if failed > 0 or passed == 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

return M
