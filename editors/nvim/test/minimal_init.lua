-- The smallest editor setup the tests need: the plugin on the runtimepath,
-- nothing of the user's configuration, no swap or shada files.
local here = debug.getinfo(1, "S").source:sub(2)
local root = vim.fn.fnamemodify(here, ":p:h:h")
-- the Neovim's own runtime and library directory (its tree-sitter parsers),
-- no user or site directory
local rtp = { root }
for _, dir in ipairs(vim.opt.runtimepath:get()) do
  if dir == vim.env.VIMRUNTIME or dir:match("/lib/nvim$") then
    rtp[#rtp + 1] = dir
  end
end
vim.opt.runtimepath = rtp
vim.opt.packpath = {}
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.opt.more = false
vim.g.scv_test_root = root
-- 0.10+ ships netrw as a package; with no packpath its plugin stub fails
-- to load it (E919). The tests never browse directories.
vim.g.loaded_netrw = 1
vim.g.loaded_netrwPlugin = 1
