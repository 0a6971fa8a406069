-- Unit tests of the queue buffer diff (no server).
local t = dofile(vim.g.scv_test_root .. "/test/harness.lua")
local qe = require("scv.queue_edit")

local function entries(...)
  local out = {}
  for i, p in ipairs({ ... }) do
    out[i] = { queueId = "q" .. i, revision = i * 10, prompt = p }
  end
  return out
end

-- marks as the view would have put them: line i carries entry i
local function own_marks(base)
  local m = {}
  for i, e in ipairs(base) do
    m[i] = { e.queueId }
  end
  return m
end

local function ops_of(plan)
  local out = {}
  for _, op in ipairs(plan.ops) do
    out[#out + 1] = op.op .. ":" .. op.queueId .. (op.beforeQueueId and ("<" .. op.beforeQueueId) or "")
  end
  return out
end

local function prompts(list)
  local out = {}
  for i, e in ipairs(list) do
    out[i] = e.prompt
  end
  return out
end

t.test("escape round-trips multi-line prompts and backslashes", function()
  local cases = { "plain", "two\nlines", "tab\there", "back\\slash", "literal \\n stays", "cr\r\nlf", "" }
  for _, p in ipairs(cases) do
    local line = qe.escape(p)
    t.ok(not line:find("\n"), "escaped line has no newline: " .. line)
    t.eq(p, qe.unescape(line), "round trip of " .. vim.inspect(p))
  end
  t.eq("two\\nlines", qe.escape("two\nlines"))
  t.eq("a\\qb", qe.unescape("a\\qb"), "unknown escape kept")
end)

t.test("unchanged buffer plans nothing", function()
  local base = entries("a", "b", "c")
  local plan = assert(qe.plan(base, qe.render(base), own_marks(base)))
  t.eq({}, plan.ops)
end)

t.test("edited line becomes an update of its entry", function()
  local base = entries("a", "b", "c")
  local plan = assert(qe.plan(base, { "a", "B edited\\nsecond", "c" }, own_marks(base)))
  t.eq({ "update:q2" }, ops_of(plan))
  t.eq("B edited\nsecond", plan.ops[1].prompt)
end)

t.test("deleted line becomes a removal", function()
  local base = entries("a", "b", "c")
  -- dd on line 2: its mark collapses onto the next line
  local plan = assert(qe.plan(base, { "a", "c" }, { { "q1" }, { "q2", "q3" } }))
  t.eq({ "remove:q2" }, ops_of(plan))
end)

t.test("deleting a line and editing the next keeps the right identity", function()
  local base = entries("first prompt", "second prompt", "third prompt")
  local plan = assert(qe.plan(base, { "first prompt", "third prompt, edited" }, { { "q1" }, { "q2", "q3" } }))
  t.eq({ "remove:q2", "update:q3" }, ops_of(plan))
end)

t.test("blank line counts as deleted", function()
  local base = entries("a", "b")
  local plan = assert(qe.plan(base, { "", "b" }, own_marks(base)))
  t.eq({ "remove:q1" }, ops_of(plan))
end)

t.test("reorder by dd/p (marks lost) becomes moves", function()
  local base = entries("a", "b", "c", "d")
  local lines = { "b", "c", "a", "d" }
  local plan = assert(qe.plan(base, lines, { { "q2" }, { "q3" }, {}, { "q4" } }))
  t.eq({ "move:q1<q4" }, ops_of(plan))
  t.eq(lines, prompts(qe.simulate(base, plan.ops)))
end)

t.test("moving to the end uses no beforeQueueId", function()
  local base = entries("a", "b", "c")
  local plan = assert(qe.plan(base, { "b", "c", "a" }, {}))
  t.eq({ "move:q1" }, ops_of(plan))
  t.eq(nil, plan.ops[1].beforeQueueId)
end)

t.test("every permutation of five entries is reached", function()
  local base = entries("a", "b", "c", "d", "e")
  local function permute(arr, n, visit)
    if n == 1 then
      return visit(arr)
    end
    for i = 1, n do
      permute(arr, n - 1, visit)
      local j = (n % 2 == 0) and i or 1
      arr[j], arr[n] = arr[n], arr[j]
    end
  end
  local count = 0
  permute({ "a", "b", "c", "d", "e" }, 5, function(arr)
    count = count + 1
    local plan = assert(qe.plan(base, arr, {}))
    t.eq(arr, prompts(qe.simulate(base, plan.ops)), "order " .. table.concat(arr))
    -- a longest kept run means at most n - 1 moves, and none for the identity
    t.ok(#plan.ops <= 4)
  end)
  t.eq(120, count)
end)

t.test("removal, update and move together", function()
  local base = entries("a", "b", "c", "d")
  local lines = { "d", "b2", "a" }
  local plan = assert(qe.plan(base, lines, { { "q4" }, { "q2" }, { "q1", "q3" } }))
  t.eq({ "a", "b2", "d" }, prompts(qe.simulate(base, vim.tbl_filter(function(op)
    return op.op ~= "move"
  end, plan.ops))))
  t.eq(lines, prompts(qe.simulate(base, plan.ops)))
  t.eq("remove", plan.ops[1].op)
end)

t.test("duplicate prompts keep their own entries", function()
  local base = entries("same", "same", "other")
  local plan = assert(qe.plan(base, { "same", "other", "same" }, { { "q1" }, { "q3" }, {} }))
  t.eq({ "same", "other", "same" }, prompts(qe.simulate(base, plan.ops)))
  for _, op in ipairs(plan.ops) do
    t.ok(op.op == "move", "only moves: " .. vim.inspect(op))
  end
end)

t.test("an added line is refused with its line number", function()
  local base = entries("a")
  local plan, err = qe.plan(base, { "a", "new prompt" }, { { "q1" } })
  t.eq(nil, plan)
  t.contains(err, "line 2")
end)

t.test("a yanked copy of a line is refused", function()
  local base = entries("a", "b")
  local plan, err = qe.plan(base, { "a", "a", "b" }, { { "q1" }, {}, { "q2" } })
  t.eq(nil, plan)
  t.contains(err, "line 2")
end)

t.run()
