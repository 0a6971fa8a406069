-- Tool-call blocks of the transcript: the call with its arguments, its
-- approval, the live output a running command prints (scv/tool/output), its
-- result; and the plan checklist (scv/plan/updated).
--
-- Live output can be megabytes: only the last LIVE_OUTPUT_MAX_BYTES are kept,
-- the last LIVE_OUTPUT_MAX_LINES of them drawn, and a block that changes many
-- times between two flushes is rendered once (Transcript:_stale).

return function(Transcript, M)
  -- Bytes of a running tool's output the transcript keeps (the tail).
  M.LIVE_OUTPUT_MAX_BYTES = 64 * 1024
  -- Lines of that tail drawn under the tool call while it runs.
  M.LIVE_OUTPUT_MAX_LINES = 200

  local function split_lines(text)
    return vim.split(text, "\n", { plain = true })
  end

  -- The argument lines of a call, decoded once per arguments string (a
  -- block is redrawn for every status and output change).
  local function argument_lines(t)
    if t.args_lines ~= nil and t.args_for == t.arguments then
      return t.args_lines
    end
    local lines, body = {}, M.TOOL_BODY
    local ok, args = pcall(vim.json.decode, t.arguments or "")
    if ok and type(args) == "table" and args[1] == nil then
      local keys = vim.tbl_keys(args)
      table.sort(keys)
      for _, k in ipairs(keys) do
        local v = args[k]
        if type(v) ~= "string" then
          v = vim.json.encode(v)
        end
        local vl = split_lines(v)
        if #vl == 1 then
          lines[#lines + 1] = string.format("%s%s: %s", body, k, vl[1])
        else
          lines[#lines + 1] = string.format("%s%s:", body, k)
          for _, l in ipairs(vl) do
            lines[#lines + 1] = body .. "  " .. l
          end
        end
      end
    elseif t.arguments and t.arguments ~= "" then
      for _, l in ipairs(split_lines(t.arguments)) do
        lines[#lines + 1] = body .. l
      end
    end
    t.args_for, t.args_lines = t.arguments, lines
    return lines
  end

  local function live_lines(t, lines)
    local body = M.TOOL_BODY
    local text = t.live
    if text:sub(-1) == "\n" then
      text = text:sub(1, -2)
    end
    local ll = split_lines(text)
    local first = math.max(1, #ll - M.LIVE_OUTPUT_MAX_LINES + 1)
    lines[#lines + 1] = body .. "output so far:"
    if t.live_dropped > 0 or first > 1 then
      lines[#lines + 1] = string.format(
        "%s  … %d earlier bytes and %d lines not shown",
        body,
        t.live_dropped,
        first - 1
      )
    end
    for i = first, #ll do
      lines[#lines + 1] = body .. "  " .. ll[i]
    end
  end

  local function tool_lines(t)
    local status = t.status
    if t.risk and t.status == "awaiting approval" then
      status = string.format("awaiting approval (%s)", t.risk)
    end
    local lines = { string.format("%s%s [%s] — %s", M.TOOL_HEADER, t.name or "tool", t.call_id, status) }
    local body = M.TOOL_BODY
    vim.list_extend(lines, argument_lines(t))
    if t.notice then
      -- a rule held for the user's confirmation: said before the decision
      for _, l in ipairs(split_lines(t.notice)) do
        lines[#lines + 1] = body .. "note: " .. l
      end
    end
    if t.decision then
      lines[#lines + 1] = body .. "decision: " .. t.decision
    end
    if t.output then
      lines[#lines + 1] = body .. (t.success and "output:" or "output (failed):")
      local out = t.output
      if out:sub(-1) == "\n" then
        out = out:sub(1, -2)
      end
      for _, l in ipairs(split_lines(out)) do
        lines[#lines + 1] = body .. "  " .. l
      end
      if t.truncated then
        lines[#lines + 1] = body .. "(output truncated)"
      end
    elseif t.live then
      live_lines(t, lines)
    end
    lines[#lines + 1] = ""
    return lines
  end

  local function key(turn_id, call_id)
    return tostring(turn_id) .. "\0" .. tostring(call_id)
  end

  function Transcript:_tool_block(turn_id, call_id)
    local k = key(turn_id, call_id)
    local t = self.tools[k]
    if t == nil then
      t = { call_id = call_id, turn_id = turn_id, status = "proposed" }
      t.block = self:_push({ kind = "tool", turn_id = turn_id, lines = {} })
      t.block.render = function()
        return tool_lines(t)
      end
      self.tools[k] = t
    end
    return t
  end

  --- A tool call; later calls for the same call of the same turn update the
  --- same block (call ids are only unique within a turn).
  ---@param turn_id string
  ---@param call_id string
  ---@param fields table name, arguments, status, risk, decision, output, success, truncated
  function Transcript:tool(turn_id, call_id, fields)
    local t = self:_tool_block(turn_id, call_id)
    for k, v in pairs(fields) do
      t[k] = v
    end
    if t.output then
      -- the result replaces what was shown while it ran
      t.live, t.live_dropped = nil, nil
    end
    self:_stale(t.block)
  end

  --- The arguments of a call, as scv/tool/proposed sent them (nil if unseen).
  function Transcript:tool_arguments(turn_id, call_id)
    local t = self.tools[key(turn_id, call_id)]
    return t and t.arguments or nil
  end

  --- A chunk of a running tool's output (scv/tool/output).
  function Transcript:tool_output(turn_id, call_id, chunk)
    if type(chunk) ~= "string" or chunk == "" then
      return
    end
    local t = self:_tool_block(turn_id, call_id)
    if t.output then
      return -- finished: a late chunk changes nothing
    end
    local live = (t.live or "") .. chunk
    local dropped = t.live_dropped or 0
    if #live > M.LIVE_OUTPUT_MAX_BYTES then
      local cut = #live - M.LIVE_OUTPUT_MAX_BYTES
      -- start the kept tail at a line when one begins near the cut
      local nl = live:find("\n", cut + 1, true)
      if nl and nl - cut < 4096 then
        cut = nl
      end
      dropped = dropped + cut
      live = live:sub(cut + 1)
    end
    t.live, t.live_dropped = live, dropped
    self:_stale(t.block)
  end

  local plan_marks = { completed = "[x]", in_progress = "[~]", pending = "[ ]" }

  local function plan_lines(steps)
    local lines = { "### Plan" }
    for _, s in ipairs(steps or {}) do
      local mark = plan_marks[s.status] or "[ ]"
      local text = tostring(s.step or ""):gsub("\n", " ")
      lines[#lines + 1] = string.format("- %s %s%s", mark, text, s.status == "in_progress" and " ← in progress" or "")
    end
    lines[#lines + 1] = ""
    return lines
  end
  M.plan_lines = plan_lines

  --- The plan of a turn (scv/plan/updated): one checklist per turn, updated
  --- in place.
  function Transcript:plan(turn_id, steps)
    self.plans = self.plans or {}
    local block = self.plans[turn_id]
    if block == nil or self.blocks[block.index] ~= block then
      block = self:_push({ kind = "plan", turn_id = turn_id, lines = {} })
      self.plans[turn_id] = block
    end
    self:_replace(block, plan_lines(steps))
  end
end
