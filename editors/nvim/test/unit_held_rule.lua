-- A rule of the user's config held for confirmation (scv/approval/requested
-- `notice`, `confirmsRule`), headless on a fake connection: the approval
-- prompt and the transcript show the notice before the user answers, and
-- "Always allow" says that it confirms the rule.
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local fake = dofile(vim.g.scv_test_root .. "/test/fake_ctl.lua")

fake.capture_notify()
local ctl, sent = fake.setup()
local note = fake.note

local NOTICE = 'the rule "shell:touch *" in /u/.scv/config.toml would allow this call, but it appeared while a tool call ran'

local function held(sid, extra)
  fake.session(ctl, sent, sid)
  note(ctl, 1, "turn/started", { turnId = "t1", prompt = "first" })
  return vim.tbl_extend("force", {
    turnId = "t1", approvalId = "ap-" .. sid, callId = "c1", name = "shell", risk = "exec", cwd = "/w",
    summary = "touch pwned", suggestedRule = "shell:touch *", notice = NOTICE, confirmsRule = true,
  }, extra or {})
end

t.test("the prompt carries the notice; 'Always allow' confirms the held rule, asked once more", function()
  local a = held("h1")
  local asked = fake.stub_select(function(labels, opts)
    if opts.kind == "scv.approval" then
      return "Always allow shell:touch * (confirms the held rule)"
    end
    return labels[1]
  end)
  local n = #sent
  note(ctl, 2, "approval/requested", a)
  local resolve = fake.wait_request(t, sent, "scv/approval/resolve", n)
  t.contains(asked[1].opts.prompt, "note: " .. NOTICE)
  t.eq("scv.approval_rule", asked[2].opts.kind, "a confirmation came first")
  t.contains(asked[2].opts.prompt, "confirm the held rule shell:touch *")
  t.contains(asked[2].opts.prompt, NOTICE)
  t.contains(asked[2].labels[1], "confirm shell:touch * in my user config")
  t.eq({ sessionId = "h1", approvalId = "ap-h1", decision = "approve", allowRule = "shell:touch *" }, resolve.params)
  t.contains(fake.transcript(ctl), "note: " .. NOTICE)
end)

t.test("a rule that is not the held one keeps its plain label; the notice is still shown", function()
  local a = held("h2", { suggestedRule = "shell:sh build.sh" })
  a.confirmsRule = nil -- the server omits it: the held rule is not offered
  local asked = fake.stub_select(function()
    return "Deny"
  end)
  local n = #sent
  note(ctl, 2, "approval/requested", a)
  fake.wait_request(t, sent, "scv/approval/resolve", n)
  t.contains(asked[1].opts.prompt, "note: " .. NOTICE)
  t.eq({ "Approve", "Deny", "Approve for session", "Always allow shell:sh build.sh" }, asked[1].labels)
end)

t.run()
