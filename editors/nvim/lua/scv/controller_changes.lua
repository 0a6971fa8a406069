-- Reviewing and undoing what a turn changed (issue 13): :Scv diff opens a
-- turn's file as a native diff (before ↔ after), :Scv undo reverts the turn
-- under the cursor (and every later one) after a confirmation, offering to
-- force the files someone changed since.
local diff_split = require("scv.diff_split")
local protocol = require("scv.protocol")

local levels = vim.log.levels

return function(Controller)
  -- The transcript line the cursor is on, when the current window shows the
  -- session's transcript.
  local function cursor_line(self, st)
    local view = self.views[st.session_id]
    if view and view.buf and vim.api.nvim_get_current_buf() == view.buf then
      return vim.api.nvim_win_get_cursor(0)[1]
    end
    return nil
  end

  local function select_async(items, opts, cb)
    vim.ui.select(items, opts, function(choice)
      vim.schedule(function()
        cb(choice)
      end)
    end)
  end

  --- Open one file of a turn's changes as a diff.
  function Controller:open_turn_diff(st, turn_id, path)
    local params = { sessionId = st.session_id, turnId = turn_id, path = path }
    self:request(protocol.request.turn_changes, params, function(err, result)
      if err then
        self:notify("scv: could not read the turn's changes: " .. protocol.error_text(err), levels.ERROR)
        return
      end
      local f = type(result) == "table" and type(result.files) == "table" and result.files[1] or nil
      if f == nil then
        self:notify(string.format("scv: turn %s did not change %s", turn_id, path), levels.WARN)
        return
      end
      if f.binary == true then
        self:notify(string.format("scv: %s is binary; no text diff", path), levels.INFO)
        return
      end
      local base = string.format("scv://%s/%s/", st.session_id, turn_id)
      local before = not protocol.is_null(f.before) and f.before or nil
      local after = not protocol.is_null(f.after) and f.after or nil
      self.last_diff = diff_split.open({
        path = path,
        left = { name = base .. "before/" .. path .. (before == nil and " (absent)" or ""), text = before },
        right = { name = base .. "after/" .. path .. (after == nil and " (deleted)" or ""), text = after },
      })
    end)
  end

  --- :Scv diff [path] — the changed file under the cursor in the transcript,
  --- else a file of the turn under the cursor (or of the last turn that
  --- changed files), picked when there are several.
  function Controller:diff(path)
    self:with_session("diff", function(st)
      local tr = st.transcript
      local line = cursor_line(self, st)
      local turn_id, at_path
      if line then
        turn_id, at_path = tr:changed_file_at(line)
        turn_id = turn_id or tr:turn_at(line)
      end
      local files = turn_id and tr:changes_of(turn_id)
      if files == nil then
        turn_id, files = tr:last_changes()
      end
      if turn_id == nil or files == nil then
        self:notify("scv: no turn of this session changed files", levels.INFO)
        return
      end
      path = (path ~= nil and path ~= "") and path or at_path
      if path or #files == 1 then
        self:open_turn_diff(st, turn_id, path or files[1].path)
        return
      end
      select_async(files, {
        prompt = "Diff of a file turn " .. turn_id .. " changed",
        kind = "scv.changed_file",
        format_item = function(f)
          return string.format("%s (+%d −%d)", f.path, tonumber(f.added) or 0, tonumber(f.removed) or 0)
        end,
      }, function(choice)
        if choice then
          self:open_turn_diff(st, turn_id, choice.path)
        end
      end)
    end)
  end

  local function conflict_lines(conflicts)
    local lines = {}
    for _, c in ipairs(conflicts) do
      lines[#lines + 1] = "# changed since the turn: " .. tostring(c.path)
      vim.list_extend(lines, diff_split.split_text(type(c.diff) == "string" and c.diff or ""))
      lines[#lines + 1] = ""
    end
    return lines
  end

  -- scv/turn/revert; conflicts are shown and may be forced.
  function Controller:_revert(st, turn_id, force)
    local params = { sessionId = st.session_id, turnId = turn_id, force = force or nil }
    self:request(protocol.request.turn_revert, params, function(err, result)
      if err then
        local code = protocol.error_code(err)
        if code == protocol.errors.turn_active then
          self:notify("scv: a turn is running; cancel it (or let it end) before undoing", levels.WARN)
        elseif code == protocol.errors.turn_not_found then
          self:notify("scv: turn " .. turn_id .. " has nothing to revert", levels.WARN)
        else
          self:notify("scv: undo failed: " .. protocol.error_text(err), levels.ERROR)
        end
        return
      end
      result = type(result) == "table" and result or {}
      local reverted = type(result.reverted) == "table" and result.reverted or {}
      local conflicts = type(result.conflicts) == "table" and result.conflicts or {}
      if #reverted > 0 then
        self:notify(string.format("scv: reverted %d file(s): %s", #reverted, table.concat(reverted, ", ")), levels.INFO)
      end
      if #conflicts == 0 then
        return
      end
      local buf = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, conflict_lines(conflicts))
      vim.bo[buf].filetype = "diff"
      vim.bo[buf].bufhidden = "wipe"
      vim.bo[buf].modifiable = false
      vim.cmd("botright split")
      vim.api.nvim_win_set_buf(0, buf)
      local names = {}
      for _, c in ipairs(conflicts) do
        names[#names + 1] = tostring(c.path)
      end
      self.last_conflicts = { buf = buf, paths = names }
      if force then
        -- What force leaves is what it cannot settle safely (a symlink or
        -- the user's own files in the way): offering Force again would
        -- only repeat it. Each conflict's diff says what to move away.
        self:notify(string.format("scv: %d file(s) could not be reverted even with force: %s (see why in the split; move them away and undo again)",
          #names, table.concat(names, ", ")), levels.WARN)
        return
      end
      select_async({ "Force: overwrite them with their content before the turn", "Leave them (the turn stays revertable)" }, {
        prompt = string.format("scv: %d file(s) changed since the turn: %s", #names, table.concat(names, ", ")),
        kind = "scv.revert_conflicts",
      }, function(choice)
        if choice and choice:match("^Force") then
          self:_revert(st, turn_id, true)
        end
      end)
    end)
  end

  --- :Scv undo — revert the turn under the cursor (in the transcript; else
  --- the last turn that changed files) and every later turn, after asking.
  function Controller:undo()
    self:with_session("undo", function(st)
      local tr = st.transcript
      local line = cursor_line(self, st)
      local turn_id = line and tr:turn_at(line)
      if turn_id == nil then
        turn_id = tr:last_changes()
      end
      if turn_id == nil then
        self:notify("scv: no turn to undo (put the cursor on a turn in the transcript)", levels.INFO)
        return
      end
      local files = tr:changes_of(turn_id) or {}
      local question = string.format(
        "scv: revert turn %s and every later turn (%d file(s) changed by it)?",
        turn_id,
        #files
      )
      select_async({ "Revert", "Cancel" }, { prompt = question, kind = "scv.confirm_revert" }, function(choice)
        if choice == "Revert" then
          self:_revert(st, turn_id, false)
        end
      end)
    end)
  end
end
