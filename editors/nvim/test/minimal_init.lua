-- The smallest editor setup the tests need: the plugin on the runtimepath,
-- nothing of the user's configuration, no swap or shada files.
local here = debug.getinfo(1, "S").source:sub(2)
local root = vim.fn.fnamemodify(here, ":p:h:h")
vim.opt.runtimepath = { root, vim.env.VIMRUNTIME }
vim.opt.packpath = {}
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.opt.more = false
vim.g.scv_test_root = root
-- 0.10+ ships netrw as a package; with no packpath its plugin stub fails
-- to load it (E919). The tests never browse directories.
vim.g.loaded_netrw = 1
vim.g.loaded_netrwPlugin = 1
