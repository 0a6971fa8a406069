-- Issue 13 in the editor, headless on a fake connection: a turn's changed
-- files in the transcript, :Scv diff (a native diff split of before ↔
-- after), :Scv undo (confirmation, conflicts, force, reverted marks).
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local fake = dofile(vim.g.scv_test_root .. "/test/fake_ctl.lua")

local notified = fake.capture_notify()

local ctl, sent = fake.setup()
local last, note = fake.last, fake.note

local function wait_request(method, after)
  return fake.wait_request(t, sent, method, after)
end

-- A session with two finished turns; t1 changed two files, t2 one. The
-- transcript is shown in the current window.
local function two_turns(sid)
  fake.session(ctl, sent, sid)
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "edit both" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "Edited." })
  note(ctl, 3, "turn/changes", { turnId = "t1", files = { { path = "a.txt", added = 1, removed = 1 }, { path = "src/b.go", added = 3, removed = 0 } } })
  note(ctl, 4, "turn/completed", { turnId = "t1", steps = 1, usage = {} })
  note(ctl, 5, "turn/started", { turnId = "t2", prompt = "again" })
  note(ctl, 6, "turn/changes", { turnId = "t2", files = { { path = "a.txt", added = 2, removed = 2 } } })
  note(ctl, 7, "turn/completed", { turnId = "t2", steps = 1, usage = {} })
  local text = fake.transcript(ctl)
  ctl.views[sid]:show("current")
  return text
end

local function line_of(needle, nth)
  local n = 0
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l == needle then
      n = n + 1
      if n == (nth or 1) then
        return i
      end
    end
  end
  error("no line " .. needle)
end

local function normal_windows()
  local out = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(w).relative == "" then
      local b = vim.api.nvim_win_get_buf(w)
      out[#out + 1] = { name = vim.api.nvim_buf_get_name(b), lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), diff = vim.wo[w].diff, ft = vim.bo[b].filetype }
    end
  end
  return out
end

t.test("the files a turn changed are listed under it", function()
  local text = two_turns("c1")
  t.contains(text, "Edited.\n\n**2 files changed** _" .. require("scv.transcript").CHANGES_HINT .. "_\n- a.txt (+1 −1)\n- src/b.go (+3 −0)\n")
  t.contains(text, "## You\nagain\n\n**1 file changed**")
end)

t.test(":Scv diff on a changed-file line opens that file's before ↔ after as a diffthis split", function()
  two_turns("c2")
  vim.api.nvim_win_set_cursor(0, { line_of("- src/b.go (+3 −0)"), 0 })
  local n = #sent
  vim.cmd("Scv diff")
  local req = wait_request("scv/turn/changes", n)
  t.eq({ sessionId = "c2", turnId = "t1", path = "src/b.go" }, req.params)
  req.cb(nil, { files = { { path = "src/b.go", diff = "…", before = "package b\n", after = "package b\n\nfunc F() {}\n" } } })
  local wins = normal_windows()
  t.eq(2, #wins)
  t.eq("scv://c2/t1/before/src/b.go", wins[1].name)
  t.eq("scv://c2/t1/after/src/b.go", wins[2].name)
  t.eq({ "package b" }, wins[1].lines)
  t.eq({ "package b", "", "func F() {}" }, wins[2].lines)
  t.eq({ true, true }, { wins[1].diff, wins[2].diff })
  t.eq("go", wins[2].ft, "the file's filetype")
  vim.cmd("tabclose")
end)

t.test(":Scv diff elsewhere in a turn picks among its files; a created file diffs against nothing", function()
  two_turns("c3")
  vim.api.nvim_win_set_cursor(0, { line_of("edit both"), 0 })
  local asked = fake.stub_select(function(labels)
    return labels[1]
  end)
  local n = #sent
  vim.cmd("Scv diff")
  local req = wait_request("scv/turn/changes", n)
  t.eq({ "a.txt (+1 −1)", "src/b.go (+3 −0)" }, asked[1].labels)
  t.eq({ sessionId = "c3", turnId = "t1", path = "a.txt" }, req.params)
  req.cb(nil, { files = { { path = "a.txt", diff = "…", after = "new\n" } } })
  local wins = normal_windows()
  t.eq("scv://c3/t1/before/a.txt (absent)", wins[1].name)
  t.eq({ "" }, wins[1].lines)
  vim.cmd("tabclose")
end)

t.test(":Scv undo asks, reverts the turn under the cursor, and marks every reverted turn", function()
  two_turns("u1")
  vim.api.nvim_win_set_cursor(0, { line_of("Edited."), 0 })
  local asked = fake.stub_select(function()
    return "Revert"
  end)
  local n = #sent
  vim.cmd("Scv undo")
  local req = wait_request("scv/turn/revert", n)
  t.contains(asked[1].opts.prompt, "revert turn t1 and every later turn (2 file(s) changed by it)")
  t.eq({ sessionId = "u1", turnId = "t1" }, req.params)
  req.cb(nil, { reverted = { "a.txt", "src/b.go" }, conflicts = {} })
  t.ok(notified("reverted 2 file(s): a.txt, src/b.go"))
  note(ctl, 8, "turn/reverted", { turnId = "t1", turnIds = { "t1", "t2" } })
  local text = fake.transcript(ctl)
  t.contains(text, "## You — reverted\nedit both")
  t.contains(text, "## You — reverted\nagain")
  t.contains(text, "_reverted 2 turns_")
end)

t.test(":Scv undo cancelled sends nothing; conflicts are listed and can be forced", function()
  two_turns("u2")
  vim.api.nvim_win_set_cursor(0, { line_of("again"), 0 })
  fake.stub_select(function()
    return "Cancel"
  end)
  local n = #sent
  vim.cmd("Scv undo")
  fake.stub_select(function(labels)
    return labels[1]
  end)
  vim.cmd("Scv undo")
  local req = wait_request("scv/turn/revert", n)
  t.eq({ sessionId = "u2", turnId = "t2" }, req.params, "the cancelled undo sent nothing; this one is t2")
  local asked = fake.stub_select(function(labels)
    return labels[1]
  end)
  n = #sent
  req.cb(nil, { reverted = {}, conflicts = { { path = "a.txt", diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+user edit\n" } } })
  local forced = wait_request("scv/turn/revert", n)
  t.eq({ sessionId = "u2", turnId = "t2", force = true }, forced.params)
  t.contains(asked[1].opts.prompt, "1 file(s) changed since the turn: a.txt")
  local buf = ctl.last_conflicts.buf
  t.eq("diff", vim.bo[buf].filetype)
  t.contains(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"), "# changed since the turn: a.txt\n--- a/a.txt")
  vim.cmd("close")
end)

t.test("conflicts a forced revert leaves are shown, and Force is not offered again", function()
  two_turns("u4")
  fake.stub_select(function(labels)
    return labels[1]
  end)
  local n = #sent
  vim.cmd("Scv undo")
  local req = wait_request("scv/turn/revert", n)
  n = #sent
  req.cb(nil, { reverted = {}, conflicts = { { path = "a.txt", diff = "--- a/a.txt\n+++ b/a.txt\n" } } })
  local forced = wait_request("scv/turn/revert", n)
  local asked = fake.stub_select(function(labels)
    return labels[1]
  end)
  n = #sent
  local blocked = "# a.txt: writing it would go through a symlink; move it away and revert again\n"
  forced.cb(nil, { reverted = {}, conflicts = { { path = "a.txt", diff = blocked } } })
  t.eq(0, #asked, "Force was offered again after a forced revert")
  t.eq(n, #sent, "a forced revert was sent again")
  t.ok(notified("1 file(s) could not be reverted even with force: a.txt"))
  t.contains(table.concat(vim.api.nvim_buf_get_lines(ctl.last_conflicts.buf, 0, -1, false), "\n"), "move it away and revert again")
  vim.cmd("close")
end)

t.test(":Scv undo while a turn runs says to cancel first", function()
  two_turns("u3")
  fake.stub_select(function()
    return "Revert"
  end)
  local n = #sent
  vim.cmd("Scv undo")
  local req = wait_request("scv/turn/revert", n)
  t.eq("t2", req.params.turnId, "outside a turn: the last turn that changed files")
  req.cb({ code = -32000, message = "a turn is running", data = { code = "turn_active" } })
  t.ok(notified("a turn is running; cancel it"))
end)

t.test("gd and gu in the transcript are :Scv diff and :Scv undo at the cursor", function()
  two_turns("k1")
  vim.api.nvim_win_set_cursor(0, { line_of("- a.txt (+2 −2)"), 0 })
  local n = #sent
  vim.cmd("normal gd")
  t.eq({ sessionId = "k1", turnId = "t2", path = "a.txt" }, wait_request("scv/turn/changes", n).params)
  fake.stub_select(function()
    return "Revert"
  end)
  vim.cmd("normal gu")
  t.eq({ sessionId = "k1", turnId = "t2" }, wait_request("scv/turn/revert", n).params)
end)

-- The buffer holds exactly what a full render of the model gives, and every
-- block knows its place (the incremental edits after an insertion in the
-- middle lost or doubled nothing).
local function flushed_equals_full_render(what)
  local text = fake.transcript(ctl)
  local tr = ctl.state.transcript
  t.eq(table.concat(tr:all_lines(), "\n"), text, what)
  for i, b in ipairs(tr.blocks) do
    t.eq(i, b.index, "index of block " .. i .. " (" .. b.kind .. ")")
  end
  return text
end

local function after_header(text)
  return text:sub(text:find("## You", 1, true), -1)
end

local T1_FILES = { { path = "a.txt", added = 1, removed = 1 }, { path = "src/b.go", added = 3, removed = 0 } }
local T1_DRAWN = "Edited.\n\n**2 files changed** _"
  .. require("scv.transcript").CHANGES_HINT
  .. "_\n- a.txt (+1 −1)\n- src/b.go (+3 −0)\n\n_usage: 0 input · 0 output tokens · 1 steps_\n\n## You\nagain\n"

t.test("changes arriving after the turn ended and the next one began land under their turn", function()
  fake.session(ctl, sent, "late1")
  ctl.views["late1"]:show("current")
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "edit both" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "Edited." })
  note(ctl, 3, "turn/completed", { turnId = "t1", steps = 1, usage = {} })
  note(ctl, 4, "turn/started", { turnId = "t2", prompt = "again" })
  note(ctl, 5, "assistant/reasoning", { turnId = "t2", content = "think" })
  note(ctl, 6, "assistant/delta", { turnId = "t2", content = "Work" })
  flushed_equals_full_render("before the changes")
  note(ctl, 7, "turn/changes", { turnId = "t1", files = T1_FILES })
  flushed_equals_full_render("the changes inserted above the running turn")
  note(ctl, 8, "assistant/delta", { turnId = "t2", content = " goes on" })
  local text = flushed_equals_full_render("the running turn streams on below them")
  t.contains(text, T1_DRAWN)
  t.contains(text, "## You\nagain\n\n" .. require("scv.transcript").REASONING_HEADER .. "\n│ think\n\nWork goes on")
  local tr = ctl.state.transcript
  t.eq("assistant", tr.blocks[#tr.blocks].kind, "one text block for t2's answer")

  vim.api.nvim_win_set_cursor(0, { line_of("- src/b.go (+3 −0)"), 0 })
  local n = #sent
  vim.cmd("normal gd")
  t.eq({ sessionId = "late1", turnId = "t1", path = "src/b.go" }, wait_request("scv/turn/changes", n).params)
  vim.api.nvim_win_set_cursor(0, { line_of("- a.txt (+1 −1)") - 1, 0 })
  local asked = fake.stub_select(function()
    return "Cancel"
  end)
  vim.cmd("normal gu")
  t.contains(asked[1].opts.prompt, "revert turn t1 and every later turn (2 file(s) changed by it)", "gu on the heading")
end)

t.test("a later list for the same turn replaces the earlier one in place", function()
  fake.session(ctl, sent, "late2")
  ctl.views["late2"]:show("current")
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "edit both" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "Edited." })
  note(ctl, 3, "turn/changes", { turnId = "t1", files = { { path = "a.txt", added = 9, removed = 9 } } })
  note(ctl, 4, "turn/completed", { turnId = "t1", steps = 1, usage = {} })
  note(ctl, 5, "turn/started", { turnId = "t2", prompt = "again" })
  flushed_equals_full_render("the first list")
  note(ctl, 6, "turn/changes", { turnId = "t1", files = T1_FILES })
  local text = flushed_equals_full_render("the second list")
  t.contains(text, T1_DRAWN)
  t.ok(not text:find("+9", 1, true), "the first list is gone")
end)

t.test("a replay (terminal record, then the changes) draws what the old order drew live", function()
  local live = after_header(two_turns("late3"))
  fake.session(ctl, sent, "late4")
  local n = #sent
  ctl:attach("late3", { full = true })
  wait_request("scv/session/attach", n).cb(nil, fake.snapshot("late3", 8))
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "edit both" })
  note(ctl, 2, "assistant/delta", { turnId = "t1", content = "Edited." })
  note(ctl, 3, "turn/completed", { turnId = "t1", steps = 1, usage = {} })
  note(ctl, 4, "turn/changes", { turnId = "t1", files = T1_FILES })
  note(ctl, 5, "turn/started", { turnId = "t2", prompt = "again" })
  note(ctl, 6, "turn/cancelled", { turnId = "t2" })
  note(ctl, 7, "turn/changes", { turnId = "t2", files = { { path = "a.txt", added = 2, removed = 2 } } })
  t.eq("late3", ctl.state.session_id)
  local replayed = flushed_equals_full_render("the replay")
  local want = live:gsub("_usage: 0 input · 0 output tokens · 1 steps_(\n*)$", "_turn cancelled_%1")
  t.eq(want, after_header(replayed))
end)

t.run()
