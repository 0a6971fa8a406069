-- The rows of the :Scv sessions picker, from scv/session/list. Pure, so the
-- formatting is tested without a server; older servers leave out title,
-- updatedAt and turns, and each has a fallback.
local M = {}

-- A title longer than this is cut with an ellipsis.
M.TITLE_CHARS = 80
-- The picker lists at most this many sessions, read in pages of PAGE_SIZE.
M.MAX_SESSIONS = 500
M.PAGE_SIZE = 100

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ""
end

-- Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

--- Seconds since the epoch of an RFC 3339 time ("2026-11-30T12:00:00.5Z",
--- "…+05:00"), or nil when it is not one.
function M.parse_time(s)
  if type(s) ~= "string" then
    return nil
  end
  local y, mo, d, h, mi, sec, rest = s:match("^(%d%d%d%d)-(%d%d)-(%d%d)[T ](%d%d):(%d%d):(%d%d)(.*)$")
  if not y then
    return nil
  end
  rest = rest:gsub("^%.%d+", "")
  local offset = 0
  if rest ~= "Z" and rest ~= "z" then
    local sign, oh, om = rest:match("^([+-])(%d%d):?(%d%d)$")
    if not sign then
      return nil
    end
    offset = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == "-" and -1 or 1)
  end
  local days = days_from_civil(tonumber(y), tonumber(mo), tonumber(d))
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec) - offset
end

--- "just now", "5 min ago", "3 h ago", "yesterday", "2 days ago", or the
--- date when older than 30 days; "" when the time is unknown.
---@param iso string|nil
---@param now number seconds since the epoch
function M.age(iso, now)
  local at = M.parse_time(iso)
  if at == nil then
    return ""
  end
  local s = math.max(0, now - at)
  if s < 60 then
    return "just now"
  end
  local min = math.floor(s / 60)
  if min < 60 then
    return string.format("%d min ago", min)
  end
  local h = math.floor(min / 60)
  if h < 24 then
    return string.format("%d h ago", h)
  end
  local days = math.floor(h / 24)
  if days == 1 then
    return "yesterday"
  end
  if days <= 30 then
    return string.format("%d days ago", days)
  end
  return iso:sub(1, 10)
end

--- The first non-blank line of a text, cut to TITLE_CHARS characters.
function M.first_line(text)
  if not present(text) then
    return ""
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    local l = vim.trim(line)
    if l ~= "" then
      if vim.fn.strchars(l) > M.TITLE_CHARS then
        l = vim.fn.strcharpart(l, 0, M.TITLE_CHARS - 1) .. "…"
      end
      return l
    end
  end
  return ""
end

--- The label of a session: its title, else the first prompt this editor
--- knows for it, else its id.
function M.label(s, first_prompt)
  local title = M.first_line(s.title)
  if title ~= "" then
    return title
  end
  local p = M.first_line(first_prompt)
  return p ~= "" and p or tostring(s.sessionId)
end

--- One picker line: label, then state · turns · queued · age, then cwd.
---@param s table a row of scv/session/list
---@param now number seconds since the epoch
---@param first_prompt string|nil
function M.format(s, now, first_prompt)
  local meta = { tostring(s.state) }
  local turns = tonumber(present(s.turns) and s.turns or nil)
  if turns then
    meta[#meta + 1] = string.format("%d turn%s", turns, turns == 1 and "" or "s")
  end
  local queued = tonumber(present(s.queued) and s.queued or nil) or 0
  if queued > 0 then
    meta[#meta + 1] = string.format("%d queued", queued)
  end
  local age = M.age(present(s.updatedAt) and s.updatedAt or (present(s.createdAt) and s.createdAt or nil), now)
  if age ~= "" then
    meta[#meta + 1] = age
  end
  return string.format("%s  %s  %s", M.label(s, first_prompt), table.concat(meta, " · "), tostring(s.cwd))
end

return M
