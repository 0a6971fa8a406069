-- Durable sessions in the state reducer and the transcript (no server): the
-- prompt of scv/turn/started, seq holes in replayed events, and what a
-- restored session shows.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local state_mod = require("scv.state")
local rows = require("scv.session_rows")

local SID = "s1"

local function snapshot(seq, over)
  local s = { sessionId = SID, cwd = "/w", model = "m", state = "idle", queue = { entries = {}, paused = false }, pendingApprovals = {}, seq = seq }
  for k, v in pairs(over or {}) do
    s[k] = v
  end
  return s
end

local function ev(s, seq, method, p)
  p = p or {}
  p.sessionId = SID
  p.seq = seq
  return s:apply("scv/" .. method, p)
end

local function text(s)
  return table.concat(s.transcript:all_lines(), "\n")
end

local function count(haystack, needle)
  local _, n = haystack:gsub(vim.pesc(needle), "")
  return n
end

local usage = { inputTokens = 1, outputTokens = 2 }

-- A full replay of a session restored after a crash: the stored records skip
-- the seqs of deltas, and the snapshot's seq is past the last record.
local function restored()
  local s = state_mod.new(SID)
  s:apply_snapshot(snapshot(4110, { title = "Fix the greeting", queue = { entries = { { queueId = "q1", revision = 1, prompt = "then test", submitter = "4" } }, paused = true } }), { replay = true })
  ev(s, 1, "turn/started", { turnId = "t1", prompt = "Fix the greeting", context = { { uri = "file:///w/hello.txt", range = { start = { line = 0, character = 0 }, ["end"] = { line = 2, character = 0 } } } } })
  ev(s, 6, "assistant/completed", { turnId = "t1", content = "Done." })
  ev(s, 7, "turn/completed", { turnId = "t1", steps = 1, usage = usage })
  ev(s, 8, "queue/enqueued", { entry = { queueId = "q1", revision = 1, prompt = "then test", submitter = "4" }, position = 0 })
  ev(s, 9, "turn/started", { turnId = "t2", prompt = "Now the farewell" })
  ev(s, 15, "assistant/completed", { turnId = "t2", content = "Half an ans", interrupted = true })
  ev(s, 4097, "turn/failed", { turnId = "t2", code = "interrupted", message = "scv stopped while this turn ran" })
  ev(s, 4098, "session/restored", { interruptedTurnId = "t2", cancelledApprovals = { "a7" }, queued = 1, paused = true })
  return s
end

t.test("a turn another client started shows its prompt", function()
  local s = state_mod.new(SID)
  s:apply_snapshot(snapshot(0))
  ev(s, 1, "turn/started", { turnId = "t1", prompt = "from elsewhere" })
  t.contains(text(s), "## You\nfrom elsewhere\n")
  t.eq(0, count(text(s), "another client"))
end)

t.test("the local echo and the event show the prompt once", function()
  local s = state_mod.new(SID)
  s:apply_snapshot(snapshot(0))
  s:note_prompt("t1", "mine")
  ev(s, 1, "turn/started", { turnId = "t1", prompt = "mine" })
  -- the heading takes the first prompt as the title; the body shows it once
  local heading, body = text(s):match("^([^\n]*)\n(.*)$")
  t.eq("# mine", heading)
  t.eq(1, count(body, "mine"))
  t.eq(1, count(text(s), "## You"))
end)

t.test("a full replay with seq holes draws every stored event; the next live event applies", function()
  local s = restored()
  local all = text(s)
  t.contains(all, "## You\nFix the greeting\n")
  t.contains(all, "## You\nNow the farewell\n")
  t.contains(all, "Done.")
  t.contains(all, "Half an ans")
  t.eq(1, #s.queue, "the snapshot's queue, not doubled by the replay")
  t.eq(true, s.paused)
  t.eq(4098, s.seen_seq)
  ev(s, 4111, "session/paused", { paused = false })
  t.eq(false, s.paused, "the first live event after the replay applies")
end)

t.test("a restored session says what was interrupted, and how to resume", function()
  local all = text(restored())
  t.contains(all, "_restored after a restart: turn t2 was interrupted, 1 pending approval was cancelled, 1 queued prompt, paused — resume with :Scv resume_")
  t.contains(all, "_turn interrupted by a restart: scv stopped while this turn ran_")
  t.contains(all, "_(response cut off)_")
  t.eq(0, count(all, "turn failed"))
end)

t.test("attachments are listed under the prompt", function()
  t.contains(text(restored()), "## You\nFix the greeting\n_attached: hello.txt:1-2_\n")
end)

t.test("the title heads the transcript and follows renames", function()
  local s = restored()
  t.eq("Fix the greeting", s.title)
  t.eq("# Fix the greeting", s.transcript:all_lines()[1])
  ev(s, 4111, "session/renamed", { title = "Greetings" })
  t.eq("Greetings", s.title)
  t.eq("# Greetings", s.transcript:all_lines()[1])
  t.contains(s.transcript:all_lines()[2], SID)
end)

t.test("picker rows: title, state, turns, queued, age, cwd; older servers' rows fall back", function()
  local now = rows.parse_time("2026-11-30T12:00:00Z")
  t.eq(
    "Fix the greeting  stored · 4 turns · 2 queued · 2 days ago  /work/demo",
    rows.format({ sessionId = "s-9", cwd = "/work/demo", state = "stored", title = "Fix the greeting", turns = 4, queued = 2, createdAt = "2026-11-01T00:00:00Z", updatedAt = "2026-11-28T11:00:00.123+00:00" }, now)
  )
  -- today's server: no title, no turns, no updatedAt
  t.eq("s-1  idle · 5 min ago  /w", rows.format({ sessionId = "s-1", cwd = "/w", state = "idle", queued = 0, clients = 1, createdAt = "2026-11-30T11:55:00Z" }, now))
  t.eq("explain  running · 1 turn  /w", rows.format({ sessionId = "x", cwd = "/w", state = "running", turns = 1, createdAt = vim.NIL }, now, "explain\nthis"))
  t.eq("3 h ago", rows.age("2026-11-30T14:00:00+05:00", now))
  t.eq("just now", rows.age("2026-12-01T00:00:00Z", now), "a clock ahead of ours")
  t.eq("2026-08-01", rows.age("2026-08-01T00:00:00Z", now))
  t.eq("", rows.age("not a date", now))
end)

t.run()
