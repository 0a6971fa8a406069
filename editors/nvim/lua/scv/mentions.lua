-- `@` mentions in a prompt: `@path` attaches a workspace file as context,
-- `@selection` the last Visual selection, and a bare `@` opens a picker
-- (vim.ui.select) over the workspace's files. The files are what
-- `git ls-files` lists (tracked and untracked, without what .gitignore
-- ignores) in a repository, else a bounded walk of the directory.
local compat = require("scv.compat")

local M = {}

-- Files offered by completion and the picker, at most.
M.MAX_FILES = 5000
-- Directories the walk (outside git) never enters.
M.SKIP_DIRS = { [".git"] = true, node_modules = true, [".scv"] = true }
M.SELECTION = "@selection"

local function git_files(root)
  if vim.fn.executable("git") ~= 1 then
    return nil
  end
  local out = vim.fn.systemlist({ "git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard" })
  if vim.v.shell_error ~= 0 then
    return nil
  end
  local files = {}
  for _, f in ipairs(out) do
    if #files >= M.MAX_FILES then
      break
    end
    if f ~= "" then
      files[#files + 1] = f
    end
  end
  return files
end

-- Breadth first, so a huge subtree cannot hide the top of the workspace.
local function walk(root)
  local files, dirs = {}, { "" }
  local uv = compat.uv
  while #dirs > 0 and #files < M.MAX_FILES do
    local rel = table.remove(dirs, 1)
    local handle = uv.fs_scandir(rel == "" and root or (root .. "/" .. rel))
    while handle and #files < M.MAX_FILES do
      local name, kind = uv.fs_scandir_next(handle)
      if name == nil then
        break
      end
      local path = rel == "" and name or (rel .. "/" .. name)
      if kind == "directory" then
        if not M.SKIP_DIRS[name] and name:sub(1, 1) ~= "." then
          dirs[#dirs + 1] = path
        end
      elseif kind == "file" then
        files[#files + 1] = path
      end
    end
  end
  table.sort(files)
  return files
end

--- The workspace's files, relative to root (at most MAX_FILES).
function M.files(root)
  return git_files(root) or walk(root)
end

--- Completion of an `@` word: @selection and the files whose path contains
--- what follows the @ (prefix matches first).
function M.complete(arglead, root)
  local want = arglead:sub(2):lower()
  local first, rest = {}, {}
  if M.SELECTION:sub(1, #arglead) == arglead then
    first[#first + 1] = M.SELECTION
  end
  for _, f in ipairs(M.files(root)) do
    local lf = f:lower()
    if lf:sub(1, #want) == want then
      first[#first + 1] = "@" .. f
    elseif want ~= "" and lf:find(want, 1, true) then
      rest[#rest + 1] = "@" .. f
    end
  end
  return vim.list_extend(first, rest)
end

local function readable(path)
  local st = compat.uv.fs_stat(path)
  return st ~= nil and st.type == "file"
end

--- The context entry of a file: its URI (the server reads it, inside the
--- workspace only), with the text of its buffer when that has unsaved
--- changes.
function M.file_context(abs)
  local item = { uri = vim.uri_from_fname(abs) }
  local buf = vim.fn.bufnr("^" .. vim.fn.escape(abs, "\\^$.*~[]") .. "$")
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
    item.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  end
  return item
end

--- The mentions of a prompt: context entries for `@path` words naming a
--- file under root and for `@selection` (selection() returns its entry or
--- nil, err); `bare` is true when a lone `@` asks for the picker. A word
--- naming no file (an e-mail, a decorator) is left alone.
---@return table context, boolean bare, string|nil err
function M.parse(text, root, selection)
  local context, bare, seen = {}, false, {}
  for word in text:gmatch("%S+") do
    if word == "@" then
      bare = true
    elseif word == M.SELECTION then
      local item, err = selection()
      if item == nil then
        return {}, false, err
      end
      context[#context + 1] = item
    elseif word:sub(1, 1) == "@" then
      local rel = word:sub(2):gsub("[,.;:!?)]+$", "")
      local abs = rel:sub(1, 1) == "/" and rel or (root .. "/" .. rel)
      if not seen[abs] and readable(abs) then
        seen[abs] = true
        context[#context + 1] = M.file_context(abs)
      end
    end
  end
  return context, bare, nil
end

--- Ask for a file (or @selection) with vim.ui.select; cb(word) with the
--- chosen "@path" / "@selection", or nil.
function M.pick(root, with_selection, cb)
  local items = {}
  if with_selection then
    items[1] = M.SELECTION
  end
  for _, f in ipairs(M.files(root)) do
    items[#items + 1] = "@" .. f
  end
  if #items == 0 then
    vim.notify("scv: no file to attach under " .. root, vim.log.levels.WARN)
    cb(nil)
    return
  end
  vim.ui.select(items, { prompt = "Attach to the prompt", kind = "scv.mention" }, function(choice)
    vim.schedule(function()
      cb(choice)
    end)
  end)
end

return M
