-- :checkhealth scv — the binary and its version, the protocol version the
-- server speaks, whether a daemon serves it, and the configuration files.
local compat = require("scv.compat")
local config = require("scv.config")
local probe = require("scv.probe")
local protocol = require("scv.protocol")

local M = {}

local function scv_home()
  local home = vim.env.SCV_HOME
  if home == nil or home == "" then
    home = vim.fn.expand("~/.scv")
  end
  return home
end

local function options()
  local ctl = require("scv").instance()
  if ctl then
    return ctl.opts, ctl
  end
  return config.resolve({}), nil
end

function M.check()
  local h = compat.health()
  local opts, ctl = options()

  h.start("scv: plugin")
  if ctl then
    h.ok("setup() was called")
  else
    h.warn("setup() was not called; checking with the default options", { "call require('scv').setup() in your init.lua" })
  end
  local v = vim.version()
  h.info(
    string.format(
      "Neovim %d.%d.%d; the server is started with %s",
      v.major,
      v.minor,
      v.patch,
      type(vim.lsp.start) == "function" and "vim.lsp.start" or "vim.lsp.start_client"
    )
  )

  h.start("scv: server binary")
  local bin = opts.cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    h.error(string.format("'%s' is not executable", bin), {
      "install scv (go build -o ~/.local/bin/scv ./cmd/scv) or set `cmd` in setup()",
    })
    return
  end
  h.ok(string.format("found %s", vim.fn.exepath(bin)))
  local out = vim.fn.system({ bin, "version" })
  if vim.v.shell_error == 0 then
    h.ok("version: " .. vim.trim(out))
  else
    h.warn(string.format("`%s version` failed: %s", bin, vim.trim(out)))
  end

  h.start("scv: protocol and daemon")
  -- "auto" finds out whether a daemon answers without ever starting one
  local cmd, env = config.server_cmd(vim.tbl_extend("force", opts, { daemon = "auto" }))
  local res = probe.run(cmd, env)
  if res.init == nil then
    h.error(string.format("`%s` did not answer initialize: %s", table.concat(cmd, " "), tostring(res.error)))
  else
    local scv = res.init.capabilities and res.init.capabilities.experimental and res.init.capabilities.experimental.scv
    local info = res.init.serverInfo or {}
    if scv == nil then
      h.error("the server's initialize result has no capabilities.experimental.scv")
    elseif scv.protocolVersion == protocol.VERSION then
      h.ok(
        string.format(
          "protocol version %d (server %s %s)",
          scv.protocolVersion,
          tostring(info.name),
          tostring(info.version)
        )
      )
    else
      h.error(
        string.format("the server speaks protocol version %s; this plugin speaks %d", tostring(scv.protocolVersion), protocol.VERSION),
        { "update the plugin and the scv binary together" }
      )
    end
    local st = res.status
    local function count(v)
      -- a list of sessions or clients, or already their number
      return type(v) == "table" and #v or v
    end
    if scv and scv.daemon then
      h.ok(
        string.format(
          "daemon running (pid %s, socket %s, %s sessions, %s clients)",
          tostring(st and st.pid),
          tostring(st and st.socket),
          tostring(st and count(st.sessions)),
          tostring(st and count(st.clients))
        )
      )
    else
      h.info(string.format("no daemon running: each editor serves its sessions in-process (daemon = %q)", opts.daemon))
    end
    if res.status_error then
      h.warn("scv/daemon/status failed: " .. res.status_error)
    end
  end
  if ctl and ctl.client and ctl.client:is_running() then
    local info = ctl.client.info
    h.info(
      string.format(
        "this editor's connection: %s%s",
        info and "ready" or "starting",
        ctl.state and (", session " .. ctl.state.session_id .. " (" .. ctl:status_text() .. ")") or ", no session"
      )
    )
  end

  h.start("scv: MCP servers of this editor's session")
  if ctl and ctl.state then
    local names = vim.tbl_keys(ctl.state.mcp)
    table.sort(names)
    if #names == 0 then
      h.info("none (add [mcp_servers.NAME] to config.toml; `scv mcp list --check` tests them)")
    end
    for _, name in ipairs(names) do
      local s = ctl.state.mcp[name]
      local line = string.format("%s: %s%s", name, s.state, s.error and (" — " .. s.error) or "")
      if s.state == "ready" then
        h.ok(line)
      elseif s.state == "failed" then
        h.warn(line, { "see $SCV_HOME/logs/mcp-" .. name .. ".log, or run `scv mcp list --check`" })
      else
        h.info(line)
      end
    end
  else
    h.info("no session in this editor")
  end

  h.start("scv: configuration")
  local user_cfg = scv_home() .. "/config.toml"
  if vim.fn.filereadable(user_cfg) == 1 then
    h.ok("user config: " .. user_cfg)
  else
    h.warn("no user config at " .. user_cfg, { "run `scv init` to write a commented template" })
  end
  local project_cfg = vim.fn.getcwd() .. "/.scv/config.toml"
  if vim.fn.filereadable(project_cfg) == 1 then
    h.ok("project config: " .. project_cfg)
  else
    h.info("no project config (" .. project_cfg .. ")")
  end
end

return M
