-- What a restored session tells its user: the text of scv/session/restored.
local protocol = require("scv.protocol")

local M = {}

local function plural(n, one, many)
  return string.format("%d %s", n, n == 1 and one or many)
end

--- The notice of scv/session/restored: what the restart interrupted, and how to go on.
function M.text(p)
  local parts = {}
  if not protocol.is_null(p.interruptedTurnId) then
    parts[#parts + 1] = "turn " .. tostring(p.interruptedTurnId) .. " was interrupted"
  end
  local cancelled = type(p.cancelledApprovals) == "table" and #p.cancelledApprovals or 0
  if cancelled > 0 then
    parts[#parts + 1] = plural(cancelled, "pending approval was", "pending approvals were") .. " cancelled"
  end
  local queued = tonumber(p.queued) or 0
  if queued > 0 then
    parts[#parts + 1] = plural(queued, "queued prompt", "queued prompts")
  end
  if p.paused == true then
    parts[#parts + 1] = "paused"
  end
  local text = "restored after a restart"
  if #parts > 0 then
    text = text .. ": " .. table.concat(parts, ", ")
  end
  if p.paused == true then
    text = text .. " — resume with :Scv resume"
  end
  return text
end

return M
