-- Blocks a turn adds beside its text and tools: the model's thinking
-- (folded), steering prompts, the files the turn changed, and the mark of a
-- reverted turn. Also the reverse lookup a command needs: which block (and
-- which turn) a buffer line shows.

return function(Transcript, M)
  -- The header of a thinking block; its lines carry TOOL_BODY so the
  -- transcript buffer folds them like a tool call's body.
  M.REASONING_HEADER = M.TOOL_HEADER .. "thinking"

  --- Streamed reasoning (scv/assistant/reasoning): a folded block that grows
  --- while it is the last block; anything drawn after it closes it.
  function Transcript:reasoning(turn_id, content)
    if type(content) ~= "string" or content == "" then
      return
    end
    local block = self.open_reasoning[turn_id]
    if block == nil or block.closed or block.index ~= #self.blocks then
      block = self:_push({
        kind = "reasoning",
        turn_id = turn_id,
        pending = {},
        lines = { M.REASONING_HEADER, M.TOOL_BODY },
      })
      self.open_reasoning[turn_id] = block
    end
    M._stream(self, block, content, M.TOOL_BODY)
  end

  --- A prompt that steered a running turn (scv/turn/steered).
  function Transcript:steered(turn_id, prompt)
    local lines = { "## You (steering the running turn)" }
    vim.list_extend(lines, M._split_lines(tostring(prompt or "")))
    lines[#lines + 1] = ""
    self:_push({ kind = "steer", turn_id = turn_id, lines = lines })
  end

  M.CHANGES_HINT = "(:Scv diff on a file opens its diff, :Scv undo reverts the turn)"

  local function changes_lines(files)
    local n = #files
    if n == 0 then
      return {}
    end
    local lines = { string.format("**%d file%s changed** _%s_", n, n == 1 and "" or "s", M.CHANGES_HINT) }
    for _, f in ipairs(files) do
      lines[#lines + 1] = string.format("- %s (+%d −%d)", tostring(f.path), tonumber(f.added) or 0, tonumber(f.removed) or 0)
    end
    lines[#lines + 1] = ""
    return lines
  end

  -- Where a turn's changes block goes: after the turn's own blocks, before
  -- the note that ends it (usage, cancelled, failed) or the next turn's
  -- prompt, whichever comes first; nil (the end) when neither is drawn. The
  -- server sends the changes before or after the turn's end, and even after
  -- the next turn started: the transcript reads the same in every order.
  function Transcript:_changes_slot(turn_id)
    local blocks = self.blocks
    local prompt = self.turns[turn_id]
    local from
    if prompt and blocks[prompt.index] == prompt then
      from = prompt.index + 1
    else
      -- the turn's prompt is not drawn (a replay that started mid-turn)
      for i, b in ipairs(blocks) do
        if b.turn_id == turn_id or b.ends_turn == turn_id then
          from = i
          break
        end
      end
    end
    for i = from or #blocks + 1, #blocks do
      local b = blocks[i]
      if b.ends_turn == turn_id or (b.kind == "turn" and b.turn_id ~= turn_id) then
        return i
      end
    end
    return nil
  end

  --- The files a turn changed (scv/turn/changes): one line each. A later
  --- list for the same turn replaces the earlier one in place.
  ---@param files table[] { path, added, removed }
  function Transcript:changes(turn_id, files)
    files = files or {}
    for _, b in ipairs(self.blocks) do
      if b.kind == "changes" and b.turn_id == turn_id then
        b.files = files
        self:_replace(b, changes_lines(files))
        return
      end
    end
    if #files == 0 then
      return
    end
    local block = { kind = "changes", turn_id = turn_id, files = files, lines = changes_lines(files) }
    self:_insert(block, self:_changes_slot(turn_id) or #self.blocks + 1)
  end

  --- Mark turns as reverted (scv/turn/reverted).
  function Transcript:reverted(turn_ids)
    for _, id in ipairs(turn_ids or {}) do
      local block = self.turns[id]
      if block and not block.reverted and self.blocks[block.index] == block then
        block.reverted = true
        self:_replace(block, M._prompt_lines(block.prompt, block.context, true))
      end
    end
  end

  --- The block a 1-based buffer line shows, and the line's 1-based offset in it.
  ---@return table|nil block, integer|nil offset
  function Transcript:block_at(line)
    self:_settle_open()
    local first = 1
    for _, b in ipairs(self.blocks) do
      local n = #b.lines
      if line < first + n then
        return b, line - first + 1
      end
      first = first + n
    end
    return nil, nil
  end

  --- The turn a buffer line belongs to: the nearest turn block at or above it.
  ---@return string|nil turn_id
  function Transcript:turn_at(line)
    local b = self:block_at(line)
    local i = b and b.index or #self.blocks
    for j = i, 1, -1 do
      local bj = self.blocks[j]
      if bj.kind == "turn" then
        return bj.turn_id
      end
    end
    return nil
  end

  --- The changed file a buffer line names, with its turn (nil when the line
  --- is no changed-file line).
  ---@return string|nil turn_id, string|nil path
  function Transcript:changed_file_at(line)
    local b, offset = self:block_at(line)
    if b and b.kind == "changes" and offset > 1 and b.files[offset - 1] then
      return b.turn_id, b.files[offset - 1].path
    end
    return nil, nil
  end

  --- The last turn that changed files (its id and files), if any.
  function Transcript:last_changes()
    for i = #self.blocks, 1, -1 do
      local b = self.blocks[i]
      if b.kind == "changes" and #b.files > 0 then
        return b.turn_id, b.files
      end
    end
    return nil, nil
  end

  --- The changed files of a turn as drawn.
  function Transcript:changes_of(turn_id)
    for i = #self.blocks, 1, -1 do
      local b = self.blocks[i]
      if b.kind == "changes" and b.turn_id == turn_id and #b.files > 0 then
        return b.files
      end
    end
    return nil
  end
end
