-- Approval prompts: one at a time through vim.ui.select (so any picker the
-- user installed is used), with the edit's diff in a floating window beside
-- it. A prompt whose approval was resolved elsewhere is closed, and its late
-- answer is ignored.
local M = {}

M.CHOICES = {
  { label = "Approve", decision = "approve" },
  { label = "Deny", decision = "deny" },
  { label = "Approve for session", decision = "approve-session" },
}
-- Offered for an edit whose texts this window knows: a :diffthis split of
-- current ↔ proposed, then the same question again.
M.DIFF_CHOICE = { label = "Open diff split (current ↔ proposed)", action = "diff" }
-- Offered when the server suggests a rule (approval.suggestedRule).
M.ALLOW_RULE_LABEL = "Always allow %s"
M.CONFIRM_RULE_LABEL = "Yes: add %s to my user config and approve"
-- A rule of the user's config held for confirmation (approval.notice names
-- it; approval.confirmsRule says suggestedRule is that rule): a command may
-- have planted it, so the prompts say so and what the answer does.
M.HELD_RULE_LABEL = "Always allow %s (confirms the held rule)"
M.CONFIRM_HELD_RULE_LABEL = "Yes: confirm %s in my user config and approve"
M.BACK_LABEL = "No, back to the question"

M.DECISION_LABELS = {}
for _, c in ipairs(M.CHOICES) do
  M.DECISION_LABELS[c.decision] = c.label
end

-- The diff float never takes more of the editor than this share.
M.FLOAT_WIDTH_SHARE = 0.5
M.FLOAT_HEIGHT_SHARE = 0.7

local Approvals = {}
Approvals.__index = Approvals

---@param o table resolve fun(approval, decision, allow_rule), notify fun(msg, level),
---  reconcile fun(), edit_texts fun(approval): table|nil, string|nil (approval_diff.compute)
function M.new(o)
  return setmetatable({ o = o, active = nil, dismissed = {}, answered = {}, splits = {} }, Approvals)
end

-- The choices of one approval: the decisions, "Always allow <rule>" when the
-- server suggests one, the diff split for an edit.
function M.choices(a, can_diff)
  local list = vim.deepcopy(M.CHOICES)
  if type(a.suggestedRule) == "string" and a.suggestedRule ~= "" then
    local label = a.confirmsRule == true and M.HELD_RULE_LABEL or M.ALLOW_RULE_LABEL
    list[#list + 1] = { label = string.format(label, a.suggestedRule), action = "allow_rule" }
  end
  if can_diff then
    list[#list + 1] = M.DIFF_CHOICE
  end
  return list
end

-- The request's notice, "" when it has none (absent or JSON null).
function M.notice(a)
  return type(a.notice) == "string" and a.notice or ""
end

local function is_diff(a)
  local s = a.summary or ""
  return a.name == "edit_file" or a.name == "write_file" or s:find("\n@@", 1, true) ~= nil or s:find("^%-%-%- ") ~= nil
end

local function summary_lines(a)
  local s = a.summary or ""
  if s:sub(-1) == "\n" then
    s = s:sub(1, -2)
  end
  return vim.split(s, "\n", { plain = true })
end

local function open_float(a)
  local lines = summary_lines(a)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = is_diff(a) and "diff" or "sh"
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local columns, rows = vim.o.columns, vim.o.lines
  local width = math.max(20, math.floor(columns * M.FLOAT_WIDTH_SHARE) - 2)
  local height = math.max(1, math.min(#lines, math.floor(rows * M.FLOAT_HEIGHT_SHARE)))
  local ok, win = pcall(vim.api.nvim_open_win, buf, false, {
    relative = "editor",
    row = 1,
    col = math.max(0, columns - width - 2),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    focusable = true,
  })
  if not ok then
    return nil
  end
  return win
end

local function float_windows()
  local set = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      set[w] = true
    end
  end
  return set
end

local function close_win(win)
  if win and vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, true)
  end
end

function Approvals:_close_active()
  local act = self.active
  if act == nil then
    return
  end
  self.active = nil
  act.stale = true
  close_win(act.diff_win)
  -- pickers that draw floating windows (dressing, telescope, snacks …) are
  -- closed with them; the builtin inputlist has no window to close
  for w in pairs(act.picker_wins or {}) do
    close_win(w)
  end
end

function Approvals:_prompt(a)
  local act = { approval = a, stale = false }
  self.active = act
  local before = float_windows()
  act.diff_win = open_float(a)
  before[act.diff_win or -1] = true
  local title = string.format("scv wants to run %s (%s risk)", a.name or "a tool", a.risk or "?")
  local first = summary_lines(a)[1] or ""
  if not is_diff(a) and first ~= "" then
    title = title .. ": " .. first
  end
  if M.notice(a) ~= "" then
    title = title .. " — note: " .. M.notice(a)
  end
  -- the builtin select blocks: draw the float before it asks
  pcall(vim.cmd, "redraw")
  local texts = self.o.edit_texts and self.o.edit_texts(a) or nil
  act.texts = texts
  local ok, err = pcall(vim.ui.select, M.choices(a, texts ~= nil), {
    prompt = title,
    kind = "scv.approval",
    format_item = function(item)
      return item.label
    end,
  }, function(choice)
    vim.schedule(function()
      self:_answer(act, choice)
    end)
  end)
  if not ok then
    -- a broken picker must not leave the approval stuck as "being asked"
    if self.active == act then
      self:_close_active()
    end
    self.dismissed[a.approvalId] = true
    self.o.notify("scv: vim.ui.select failed: " .. tostring(err) .. "; answer with :Scv approve", vim.log.levels.ERROR)
    return
  end
  if not act.stale then
    act.picker_wins = {}
    for w in pairs(float_windows()) do
      if not before[w] then
        act.picker_wins[w] = true
      end
    end
  end
end

function Approvals:_answer(act, choice)
  if act.stale then
    return
  end
  if self.active == act then
    self:_close_active()
  end
  local id = act.approval.approvalId
  if choice == nil then
    self.dismissed[id] = true
    self.o.notify("scv: approval left pending; answer it with :Scv approve", vim.log.levels.INFO)
  elseif choice.action == "diff" then
    self:open_split(act.approval, act.texts)
  elseif choice.action == "allow_rule" then
    self:_confirm_rule(act.approval)
    return
  else
    self.answered[id] = true
    self.o.resolve(act.approval, choice.decision)
  end
  self.o.reconcile()
end

-- "Always allow <rule>" writes the user's config: ask once more.
function Approvals:_confirm_rule(a)
  local rule = a.suggestedRule
  local act = { approval = a, stale = false }
  self.active = act
  local held = a.confirmsRule == true
  local yes = string.format(held and M.CONFIRM_HELD_RULE_LABEL or M.CONFIRM_RULE_LABEL, rule)
  local prompt = string.format("scv: from now on, run %s calls matching %s without asking?", a.name or "tool", rule)
  if held then
    prompt = string.format("scv: confirm the held rule %s, so matching %s calls run without asking? %s", rule, a.name or "tool", M.notice(a))
  end
  vim.ui.select({ yes, M.BACK_LABEL }, {
    prompt = prompt,
    kind = "scv.approval_rule",
  }, function(choice)
    vim.schedule(function()
      if act.stale then
        return
      end
      self.active = nil
      if choice == yes then
        self.answered[a.approvalId] = true
        self.o.resolve(a, "approve", rule)
      end
      self.o.reconcile()
    end)
  end)
end

--- Open (again) the :diffthis split of an edit approval; it closes when the
--- approval is resolved.
function Approvals:open_split(a, texts)
  local diff_split = require("scv.diff_split")
  diff_split.close(self.splits[a.approvalId])
  local base = "scv://approval/" .. tostring(a.approvalId) .. "/"
  self.splits[a.approvalId] = diff_split.open({
    path = texts.path,
    left = { name = base .. "current/" .. texts.path, text = texts.current },
    right = { name = base .. "proposed/" .. texts.path, text = texts.proposed },
  })
end

function Approvals:_close_split(approval_id)
  local h = self.splits[approval_id]
  if h then
    self.splits[approval_id] = nil
    require("scv.diff_split").close(h)
  end
end

--- Prompt for the first pending approval that is neither being asked,
--- answered, nor dismissed by the user.
---@param pending table[] the session's pending approvals, oldest first
function Approvals:reconcile(pending)
  if self.active then
    return
  end
  for _, a in ipairs(pending) do
    if not self.answered[a.approvalId] and not self.dismissed[a.approvalId] then
      self:_prompt(a)
      return
    end
  end
end

--- Ask again for approvals the user dismissed.
function Approvals:retry(pending)
  self.dismissed = {}
  self:reconcile(pending)
end

--- The approval was resolved (here or elsewhere): close its prompt.
function Approvals:resolved(approval_id, decision)
  self:_close_split(approval_id)
  self.answered[approval_id] = nil
  self.dismissed[approval_id] = nil
  local act = self.active
  if act and act.approval.approvalId == approval_id then
    self:_close_active()
    local name = act.approval.name or "tool"
    local msg
    if M.DECISION_LABELS[decision] then
      msg = string.format("scv: approval for %s resolved elsewhere (%s)", name, decision)
    else
      -- cancelled, ended, closed: no one decided, the turn went away
      msg = string.format("scv: approval for %s ended with its turn (%s)", name, tostring(decision))
    end
    self.o.notify(msg, vim.log.levels.INFO)
  end
end

--- An answer could not be delivered; ask again on the next reconcile.
function Approvals:unanswered(approval_id)
  self.answered[approval_id] = nil
end

--- Drop every prompt (session detached or closed).
function Approvals:reset()
  self:_close_active()
  for id in pairs(self.splits) do
    self:_close_split(id)
  end
  self.dismissed, self.answered = {}, {}
end

--- The approval being asked, if any.
function Approvals:current()
  return self.active and self.active.approval or nil
end

return M
