-- Integration: a turn that streams 10 000 deltas into the transcript buffer.
-- Prints the figures (flushes, elapsed time, longest stall of the editor's
-- event loop); the pass/fail checks are about content, not time.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local it = dofile(vim.g.scv_test_root .. "/test/integ.lua")

local DELTAS = 10000

it.replay({
  { text = "tok ", ["repeat"] = DELTAS },
  { text = "\nend of stream" },
  { usage = { input_tokens = 1, output_tokens = DELTAS } },
  { stop = true },
})
it.capture_notify()
local ctl = it.setup()

t.test(DELTAS .. " deltas land in the transcript with batched redraws", function()
  local uv = vim.uv or vim.loop
  -- a repeating main-loop callback: the longest gap between its runs is how
  -- long the editor could not react to the user
  local last, worst, ticks = uv.hrtime(), 0, 0
  local timer = uv.new_timer()
  timer:start(
    5,
    5,
    vim.schedule_wrap(function()
      local now = uv.hrtime()
      worst = math.max(worst, now - last)
      last = now
      ticks = ticks + 1
    end)
  )
  local start = uv.hrtime()
  vim.cmd("Scv prompt stream please")
  local buf = it.wait_transcript(t, ctl, "_usage: 1 input", 60000)
  local elapsed = (uv.hrtime() - start) / 1e6
  timer:stop()
  timer:close()
  local lines = it.lines(buf)
  local stream_line
  for _, l in ipairs(lines) do
    if l:find("^tok ") then
      stream_line = l
    end
  end
  t.ok(stream_line, "the streamed line")
  t.eq(DELTAS * 4, #stream_line)
  t.contains(it.text(buf), "tok \nend of stream")
  local view = ctl.views[ctl.state.session_id]
  t.ok(view.flushes < DELTAS, "fewer buffer edits than deltas")
  io.stdout:write(
    string.format(
      "  figures: %d deltas in %.0f ms, %d buffer flushes, longest event-loop stall %.1f ms (%d ticks)\n",
      DELTAS,
      elapsed,
      view.flushes,
      worst / 1e6,
      ticks
    )
  )
end)

t.run()
