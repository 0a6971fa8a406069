-- Defines :Scv. Nothing else happens until require("scv").setup() is called.
if vim.g.loaded_scv then
  return
end
vim.g.loaded_scv = true

vim.api.nvim_create_user_command("Scv", function(o)
  require("scv.commands").run(o)
end, {
  nargs = "*",
  range = true,
  desc = "scv: drive the scv coding agent",
  complete = function(arglead, cmdline, cursorpos)
    return require("scv.commands").complete(arglead, cmdline, cursorpos)
  end,
})
