-- LSP base-protocol framing (Content-Length header + JSON body), for the
-- short-lived probe of :checkhealth, which runs outside Neovim's LSP client.
-- Pure: no editor calls.
local M = {}

--- One framed message.
---@param msg table
---@return string
function M.encode(msg)
  local body = vim.json.encode(msg)
  return string.format("Content-Length: %d\r\n\r\n%s", #body, body)
end

local Decoder = {}
Decoder.__index = Decoder

function M.decoder()
  return setmetatable({ buf = "" }, Decoder)
end

--- Feed bytes; returns the complete messages decoded so far.
---@param chunk string
---@return table[] messages
---@return string|nil error (bad header or JSON); the decoder is then unusable
function Decoder:feed(chunk)
  self.buf = self.buf .. chunk
  local out = {}
  while true do
    local header_end = self.buf:find("\r\n\r\n", 1, true)
    if header_end == nil then
      return out
    end
    local header = self.buf:sub(1, header_end - 1)
    local len = tonumber(header:match("[Cc]ontent%-[Ll]ength:%s*(%d+)"))
    if len == nil then
      return out, "frame header without Content-Length: " .. header
    end
    local body_start = header_end + 4
    if #self.buf < body_start + len - 1 then
      return out
    end
    local body = self.buf:sub(body_start, body_start + len - 1)
    self.buf = self.buf:sub(body_start + len)
    local ok, msg = pcall(vim.json.decode, body)
    if not ok then
      return out, "invalid JSON in frame: " .. tostring(msg)
    end
    out[#out + 1] = msg
  end
end

return M
