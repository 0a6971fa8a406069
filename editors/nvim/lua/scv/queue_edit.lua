-- The queue as editable lines, and the diff of an edited buffer into the
-- update / remove / move operations the server understands. Pure: no editor
-- calls, so it is tested without a server.
--
-- A line is tied to its entry two ways: by the extmark the view put on it
-- (which survives edits of the text) and by its text (which survives a move
-- with dd/p, where the mark is lost). Text wins for an unchanged prompt; the
-- mark identifies an edited one.
local M = {}

local escapes = { ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local unescapes = { ["\\"] = "\\", n = "\n", r = "\r", t = "\t" }

--- One prompt as one line: backslash, newline, carriage return and tab escaped.
---@param prompt string
---@return string
function M.escape(prompt)
  return (prompt:gsub("[\\\n\r\t]", escapes))
end

--- The inverse of escape; an unknown escape is kept as written.
---@param line string
---@return string
function M.unescape(line)
  return (line:gsub("\\(.)", function(c)
    return unescapes[c] or ("\\" .. c)
  end))
end

--- The lines that show a queue.
---@param entries table[] QueueEntry list
---@return string[]
function M.render(entries)
  local lines = {}
  for i, e in ipairs(entries) do
    lines[i] = M.escape(e.prompt or "")
  end
  return lines
end

local function similarity(a, b)
  local n = math.min(#a, #b)
  local p = 0
  while p < n and a:byte(p + 1) == b:byte(p + 1) do
    p = p + 1
  end
  local s = 0
  while s < n - p and a:byte(#a - s) == b:byte(#b - s) do
    s = s + 1
  end
  return p + s
end

-- Longest increasing subsequence of xs; returns a set of the indices in it.
local function lis(xs)
  local tails, prev, tail_idx = {}, {}, {}
  for i, x in ipairs(xs) do
    local lo, hi = 1, #tails + 1
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if tails[mid] < x then
        lo = mid + 1
      else
        hi = mid
      end
    end
    tails[lo] = x
    tail_idx[lo] = i
    prev[i] = lo > 1 and tail_idx[lo - 1] or nil
  end
  local keep = {}
  local i = tail_idx[#tails]
  while i do
    keep[i] = true
    i = prev[i]
  end
  return keep
end

--- The operations that turn `base` into what the buffer shows.
---
--- Operations come in the order they must be sent: removals, then updates,
--- then moves (each move places an entry before its successor in the new
--- order, last first, so the successor is already where it belongs).
---@param base table[] the entries the buffer was rendered from (queueId, revision, prompt)
---@param lines string[] the buffer's lines
---@param marks table[]|nil for each line, the queueIds whose mark sits on it
---@return table|nil plan { ops = { {op="remove"|"update"|"move", queueId, prompt?, beforeQueueId?} }, order = queueId[] }
---@return string|nil error naming the offending line
function M.plan(base, lines, marks)
  marks = marks or {}
  local by_id, base_pos = {}, {}
  for i, e in ipairs(base) do
    by_id[e.queueId] = e
    base_pos[e.queueId] = i
  end

  local texts, line_of = {}, {}
  for i, l in ipairs(lines) do
    if l:match("%S") then
      texts[i] = M.unescape(l)
    end
  end

  local used = {}
  local function take(i, id)
    line_of[i] = id
    used[id] = true
  end

  -- 1. the line's own mark and unchanged text
  for i, text in pairs(texts) do
    for _, id in ipairs(marks[i] or {}) do
      local e = by_id[id]
      if e and not used[id] and e.prompt == text then
        take(i, id)
        break
      end
    end
  end
  -- 2. unchanged text anywhere (a moved line lost its mark)
  local order_lines = {}
  for i in pairs(texts) do
    order_lines[#order_lines + 1] = i
  end
  table.sort(order_lines)
  for _, i in ipairs(order_lines) do
    if not line_of[i] then
      for _, e in ipairs(base) do
        if not used[e.queueId] and e.prompt == texts[i] then
          take(i, e.queueId)
          break
        end
      end
    end
  end
  -- 3. edited text: the mark says which entry; several marks collapse onto
  --    one line when lines above it were deleted, so pick the closest text
  for _, i in ipairs(order_lines) do
    if not line_of[i] then
      local best, best_score
      for _, id in ipairs(marks[i] or {}) do
        if by_id[id] and not used[id] then
          local score = similarity(by_id[id].prompt or "", texts[i])
          if best == nil or score > best_score then
            best, best_score = id, score
          end
        end
      end
      if best == nil then
        return nil,
          string.format(
            "line %d is not a queue entry (lines can be edited, deleted and reordered; add prompts with :Scv prompt)",
            i
          )
      end
      take(i, best)
    end
  end

  local ops = {}
  for _, e in ipairs(base) do
    if not used[e.queueId] then
      ops[#ops + 1] = { op = "remove", queueId = e.queueId }
    end
  end
  local order = {}
  for _, i in ipairs(order_lines) do
    local id = line_of[i]
    order[#order + 1] = id
    if by_id[id].prompt ~= texts[i] then
      ops[#ops + 1] = { op = "update", queueId = id, prompt = texts[i] }
    end
  end
  local positions = {}
  for k, id in ipairs(order) do
    positions[k] = base_pos[id]
  end
  local keep = lis(positions)
  for k = #order, 1, -1 do
    if not keep[k] then
      ops[#ops + 1] = { op = "move", queueId = order[k], beforeQueueId = order[k + 1] }
    end
  end
  return { ops = ops, order = order }, nil
end

--- Apply a plan's operations to a list of entries, as the server would.
--- Used by the tests to check that a plan reaches the buffer's order.
---@param entries table[]
---@param ops table[]
---@return table[]
function M.simulate(entries, ops)
  local list = vim.deepcopy(entries)
  local function find(id)
    for i, e in ipairs(list) do
      if e.queueId == id then
        return i
      end
    end
  end
  for _, op in ipairs(ops) do
    local i = assert(find(op.queueId), "no entry " .. tostring(op.queueId))
    if op.op == "remove" then
      table.remove(list, i)
    elseif op.op == "update" then
      list[i].prompt = op.prompt
    elseif op.op == "move" then
      local e = table.remove(list, i)
      if op.beforeQueueId then
        table.insert(list, assert(find(op.beforeQueueId), "no entry " .. op.beforeQueueId), e)
      else
        list[#list + 1] = e
      end
    end
  end
  return list
end

return M
