-- scv for Neovim: require("scv").setup(opts), then :Scv … (see :help scv).
local config = require("scv.config")

local M = {}

-- The plugin's one controller, made by the first setup() call.
local instance = nil

--- Configure the plugin. Options are merged over the defaults once; a
--- second call is refused (with a warning) so two configurations never mix.
---@param opts table|nil see :help scv-options
function M.setup(opts)
  if instance ~= nil then
    vim.notify("scv: setup() was already called; this call is ignored", vim.log.levels.WARN)
    return false
  end
  local o = config.resolve(opts)
  local commands = require("scv.commands")
  for lhs, sub in pairs(o.keymaps.global) do
    if type(sub) ~= "string" or commands.subcommands[sub] == nil then
      error(string.format("scv.setup: keymaps.global[%q] must name a sub-command, got %s", lhs, vim.inspect(sub)), 0)
    end
  end
  instance = require("scv.controller").new(o)
  for lhs, sub in pairs(o.keymaps.global) do
    vim.keymap.set("n", lhs, "<Cmd>Scv " .. sub .. "<CR>", { desc = "scv: " .. sub })
  end
  return true
end

--- A short status for statuslines: "" before the first session, then
--- "idle", "running", "approval", with " · N queued" and " (paused)".
--- The User ScvStatus autocommand fires whenever it changes.
---@return string
function M.status()
  if instance == nil then
    return ""
  end
  return instance:status_text()
end

--- The controller (for :Scv, :checkhealth and tests); nil before setup().
function M.instance()
  return instance
end

return M
