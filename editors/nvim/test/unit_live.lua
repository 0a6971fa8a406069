-- Issue 12 in the editor, headless on a fake connection: :Scv model and
-- :Scv policy, steering (and its fallback to the queue), folded thinking,
-- live tool output, the plan, usage in status(), "always allow".
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local fake = dofile(vim.g.scv_test_root .. "/test/fake_ctl.lua")
local transcript = require("scv.transcript")

local notified = fake.capture_notify()

local ctl, sent, conn = fake.setup()
local last, note = fake.last, fake.note

local function wait_request(method, after)
  return fake.wait_request(t, sent, method, after)
end

t.test(":Scv model offers scv/model/list in vim.ui.select and configures the pick", function()
  local st = fake.session(ctl, sent, "m1")
  local asked = fake.stub_select(function(labels)
    return labels[2]
  end)
  local n = #sent
  vim.cmd("Scv model")
  local list = wait_request("scv/model/list", n)
  t.eq({ sessionId = "m1" }, list.params)
  list.cb(nil, { models = { { id = "m", source = "config" }, { id = "big", source = "provider" } }, error = "GET /v1/models: timeout" })
  local conf = wait_request("scv/session/configure", n)
  t.eq({ "● m  (config)", "big  (provider)" }, asked[1].labels, "the current model is marked")
  t.eq("scv.model", asked[1].opts.kind)
  t.eq({ sessionId = "m1", model = "big" }, conf.params)
  t.ok(notified("the provider's model list failed: GET /v1/models: timeout"), "the provider's failure is said, not fatal")
  conf.cb(nil, { model = "big", approvalPolicy = "on-risk" })
  t.eq("big", st.model)
  t.eq("on-risk", st.approval_policy)
  -- another window switches it again: this one follows
  note(ctl, 1, "session/configured", { model = "small", approvalPolicy = "always" })
  t.eq("small", st.model)
  t.eq("always", st.approval_policy)
  local text = fake.transcript(ctl)
  t.contains(text, "model small")
  t.contains(text, "_model small · approval policy always_")
  t.contains(table.concat(ctl:describe(), "\n"), "model: small, approval policy: always")
  t.eq({ "big" }, require("scv.commands").complete("b", "Scv model b", 11), "models of the last list complete")
end)

t.test(":Scv model NAME configures without asking; a refusal names the reason", function()
  fake.session(ctl, sent, "m2")
  local n = #sent
  vim.cmd("Scv model other")
  local conf = wait_request("scv/session/configure", n)
  t.eq({ sessionId = "m2", model = "other" }, conf.params)
  conf.cb({ code = -32602, message = 'unknown model "other"' })
  t.ok(notified('could not set the model: unknown model "other"'))
end)

t.test(":Scv policy picks a policy; the project's refusal of auto is shown", function()
  local st = fake.session(ctl, sent, "p1", { approvalPolicy = "on-risk" })
  local asked = fake.stub_select(function()
    return "auto"
  end)
  local n = #sent
  vim.cmd("Scv policy")
  local conf = wait_request("scv/session/configure", n)
  t.eq({ "never", "● on-risk", "always", "auto" }, asked[1].labels)
  t.eq({ sessionId = "p1", approvalPolicy = "auto" }, conf.params)
  conf.cb({ code = -32602, message = 'approval policy "auto" is not allowed by the project config' })
  t.ok(notified('could not set the approval policy: approval policy "auto" is not allowed'))
  t.eq("on-risk", st.approval_policy, "unchanged")
end)

-- a session with turn t1 running
local function running(sid)
  local st = fake.session(ctl, sent, sid)
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "first" })
  return st
end

t.test("while a turn runs, a prompt asks; 'send now' steers the running turn", function()
  running("s1")
  local asked = fake.stub_select(function(labels)
    return labels[1]
  end)
  local n = #sent
  vim.cmd("Scv prompt go left instead")
  local steer = wait_request("scv/turn/steer", n)
  t.eq("scv.prompt_mode", asked[1].opts.kind)
  t.eq({ "Send now (steer the running turn)", "Queue (a new turn after this one)" }, asked[1].labels)
  t.eq({ sessionId = "s1", turnId = "t1", prompt = "go left instead" }, steer.params)
  steer.cb(nil, {})
  t.eq(nil, last(sent, "scv/turn/start"), "nothing queued")
  note(ctl, 2, "turn/steered", { turnId = "t1", prompt = "go left instead" })
  t.contains(fake.transcript(ctl), "## You (steering the running turn)\ngo left instead\n")
end)

t.test("choosing 'queue' sends scv/turn/start", function()
  running("s2")
  fake.stub_select(function(labels)
    return labels[2]
  end)
  local n = #sent
  vim.cmd("Scv prompt afterwards")
  local start = wait_request("scv/turn/start", n)
  t.eq({ sessionId = "s2", prompt = "afterwards" }, start.params)
end)

t.test("a steer that finds the turn ended (turn_not_found) queues the prompt", function()
  running("s3")
  local n = #sent
  vim.cmd("Scv steer too late")
  local steer = wait_request("scv/turn/steer", n)
  steer.cb({ code = -32000, message = "no running turn", data = { code = "turn_not_found" } })
  local start = wait_request("scv/turn/start", n)
  t.eq({ sessionId = "s3", prompt = "too late" }, start.params)
  t.ok(notified("the prompt goes to the queue"))
end)

t.test(":Scv steer with no turn running starts one; a server without steer is never asked", function()
  fake.session(ctl, sent, "s4")
  local n = #sent
  vim.cmd("Scv steer hello")
  t.eq({ sessionId = "s4", prompt = "hello" }, wait_request("scv/turn/start", n).params)
  running("s5")
  conn.methods = { "scv/turn/start" }
  local asked = fake.stub_select(function()
    error("must not ask")
  end)
  n = #sent
  vim.cmd("Scv prompt queued")
  t.eq({ sessionId = "s5", prompt = "queued" }, wait_request("scv/turn/start", n).params)
  t.eq(0, #asked)
  conn.methods = nil
end)

t.test("thinking streams into a block folded in the transcript window", function()
  running("r1")
  note(ctl, 2, "assistant/reasoning", { turnId = "t1", content = "Let me think.\nThe file " })
  note(ctl, 3, "assistant/reasoning", { turnId = "t1", content = "is short." })
  note(ctl, 4, "assistant/delta", { turnId = "t1", content = "Done." })
  local text = fake.transcript(ctl)
  t.contains(text, "▸ thinking\n│ Let me think.\n│ The file is short.\n\nDone.")
  local view = ctl.views.r1
  vim.cmd("tabnew")
  local win = view:show("current")
  local header
  for i, l in ipairs(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)) do
    if l == transcript.REASONING_HEADER then
      header = i
    end
  end
  vim.api.nvim_win_call(win, function()
    t.eq(header, vim.fn.foldclosed(header + 1), "the thinking is folded")
    t.eq(-1, vim.fn.foldclosed(header + 4), "the answer is not")
  end)
  vim.cmd("tabclose")
end)

t.test("live output shows under its tool call, bounded: 10 MB leave a small buffer", function()
  running("o1")
  note(ctl, 2, "tool/proposed", { turnId = "t1", callId = "c1", name = "shell", arguments = '{"command":"go test ./..."}' })
  note(ctl, 3, "tool/started", { turnId = "t1", callId = "c1", name = "shell" })
  local line = string.rep("x", 99) .. "\n"
  local chunk = string.rep(line, 640) -- 64,000 bytes
  local seq, total = 3, 0
  local started = (vim.uv or vim.loop).hrtime()
  while total < 10 * 1024 * 1024 do
    seq = seq + 1
    note(ctl, seq, "tool/output", { turnId = "t1", callId = "c1", chunk = chunk })
    total = total + #chunk
    if seq % 20 == 0 then
      ctl.views.o1:flush()
    end
  end
  seq = seq + 1
  note(ctl, seq, "tool/output", { turnId = "t1", callId = "c1", chunk = "last line\n" })
  local text = fake.transcript(ctl)
  io.stdout:write(string.format("  figures: %d bytes of live output in %d chunks applied and drawn in %.0f ms\n", total, seq - 3, ((vim.uv or vim.loop).hrtime() - started) / 1e6))
  local buf = ctl.views.o1.buf
  t.ok(vim.api.nvim_buf_line_count(buf) < transcript.LIVE_OUTPUT_MAX_LINES + 40, "the buffer holds the tail only")
  t.contains(text, "▸ shell [c1] — running\n│ command: go test ./...\n│ output so far:\n│   … ")
  t.contains(text, "│   last line\n")
  t.ok(#text < transcript.LIVE_OUTPUT_MAX_BYTES * 2, "no more than the kept tail is drawn")
  note(ctl, seq + 1, "tool/completed", { turnId = "t1", callId = "c1", name = "shell", success = true, output = "ok\n", truncated = true })
  text = fake.transcript(ctl)
  t.contains(text, "│ output:\n│   ok\n│ (output truncated)")
  t.ok(not text:find("output so far", 1, true), "the result replaces the live output")
end)

t.test("the plan is one checklist per turn, updated in place; usage goes to status()", function()
  running("u1")
  note(ctl, 2, "plan/updated", { turnId = "t1", steps = { { step = "read", status = "in_progress" }, { step = "fix", status = "pending" } } })
  note(ctl, 3, "assistant/delta", { turnId = "t1", content = "Reading." })
  note(ctl, 4, "plan/updated", { turnId = "t1", steps = { { step = "read", status = "completed" }, { step = "fix", status = "in_progress" } } })
  local text = fake.transcript(ctl)
  local _, plans = text:gsub("### Plan", "")
  t.eq(1, plans)
  t.contains(text, "### Plan\n- [x] read\n- [~] fix ← in progress\n")
  t.contains(table.concat(ctl:describe(), "\n"), "plan:\n  - [x] read")
  note(ctl, 5, "session/usage", { turnId = "t1", inputTokens = 12000, outputTokens = 345, contextTokens = 42000, contextMaxTokens = 100000 })
  t.eq("running · ctx 42% · 12.3k tok", require("scv").status())
  note(ctl, 6, "turn/completed", { turnId = "t1", steps = 1, usage = { inputTokens = 9, outputTokens = 9 } })
  t.eq("idle · ctx 42% · 12.3k tok", require("scv").status(), "the session's totals are not added to again")
end)

t.test("'Always allow <rule>' asks to confirm, then approves with allowRule", function()
  running("a1")
  local asked = fake.stub_select(function(labels, opts)
    if opts.kind == "scv.approval" then
      return "Always allow shell:go test *"
    end
    return labels[1]
  end)
  local n = #sent
  note(ctl, 2, "approval/requested", {
    turnId = "t1",
    approvalId = "ap1",
    callId = "c1",
    name = "shell",
    risk = "exec",
    cwd = "/w",
    summary = "go test ./...",
    suggestedRule = "shell:go test *",
  })
  local resolve = wait_request("scv/approval/resolve", n)
  t.eq("scv.approval_rule", asked[2].opts.kind, "a confirmation came first")
  t.contains(asked[2].labels[1], "add shell:go test * to my user config")
  t.eq({ sessionId = "a1", approvalId = "ap1", decision = "approve", allowRule = "shell:go test *" }, resolve.params)
  resolve.cb(nil, { ruleAddedTo = "/home/u/.scv/config.toml" })
  t.ok(notified("shell:go test * added to /home/u/.scv/config.toml"))
end)

t.test("declining the confirmation asks the approval again; no rule, no suggestion offered", function()
  running("a2")
  local answers = { "Always allow shell:ls *", "No, back to the question", "Deny" }
  local asked = fake.stub_select(function()
    return table.remove(answers, 1)
  end)
  local n = #sent
  note(ctl, 2, "approval/requested", {
    turnId = "t1", approvalId = "ap2", callId = "c1", name = "shell", risk = "exec", cwd = "/w",
    summary = "ls", suggestedRule = "shell:ls *",
  })
  local resolve = wait_request("scv/approval/resolve", n)
  t.eq(3, #asked)
  t.eq({ sessionId = "a2", approvalId = "ap2", decision = "deny" }, resolve.params)
  running("a3")
  asked = fake.stub_select(function()
    return "Approve"
  end)
  n = #sent
  note(ctl, 2, "approval/requested", { turnId = "t1", approvalId = "ap3", callId = "c1", name = "shell", risk = "exec", cwd = "/w", summary = "echo a; rm x" })
  wait_request("scv/approval/resolve", n)
  t.eq({ "Approve", "Deny", "Approve for session" }, asked[1].labels, "no suggestedRule: no always-allow")
end)

t.run()
