#!/usr/bin/env bash
# Runs every headless Neovim test of the plugin: the pure unit tests and the
# integration tests against the real `scv` binary (built here unless $SCV_BIN
# names one). Each test file runs in its own Neovim with its own temporary
# SCV_HOME and workspace. Exits non-zero when any file fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# A whole test file never runs longer than this (every wait inside is bounded
# far below it; this only catches a hung editor). A file that fails to load
# never reaches the harness's quit, so the "cquit 3" after it ends Neovim.
FILE_TIMEOUT_SECONDS=${SCV_NVIM_FILE_TIMEOUT:-300}

command -v nvim >/dev/null || { echo "nvim not found (apt-get install -y neovim)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${SCV_BIN:-}" ]; then
  echo "building scv"
  (cd "$repo" && go build -o "$work/bin/scv" ./cmd/scv)
  SCV_BIN="$work/bin/scv"
fi
SCV_BIN=$(cd "$(dirname "$SCV_BIN")" && pwd)/$(basename "$SCV_BIN")
export SCV_BIN
nvim --version | head -1

total_passed=0
total_failed=0
failed_files=()
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=("$here"/unit_*.lua "$here"/integration_*.lua)
fi

for file in "${files[@]}"; do
  file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
  name=$(basename "$file" .lua)
  dir="$work/$name"
  mkdir -p "$dir/home" "$dir/workspace"
  echo
  echo "--- $name"
  set +e
  out=$(cd "$dir/workspace" && SCV_HOME="$dir/home" SCV_SOCKET="$dir/home/server.sock" \
    SCV_TEST_WORKSPACE="$dir/workspace" \
    XDG_CACHE_HOME="$dir/xdg/cache" XDG_STATE_HOME="$dir/xdg/state" XDG_DATA_HOME="$dir/xdg/data" \
    XDG_CONFIG_HOME="$dir/xdg/config" \
    timeout "$FILE_TIMEOUT_SECONDS" nvim --headless -u "$here/minimal_init.lua" \
      -c "luafile $file" -c "cquit 3" 2>&1)
  rc=$?
  # a daemon a test started (daemon = "required") outlives the editor
  SCV_HOME="$dir/home" SCV_SOCKET="$dir/home/server.sock" "$SCV_BIN" stop >/dev/null 2>&1
  set -e
  echo "$out"
  summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1 || true)
  if [ -n "$summary" ]; then
    p=${summary%% passed*}
    f=${summary#*, }
    f=${f%% failed*}
    total_passed=$((total_passed + p))
    total_failed=$((total_failed + f))
  fi
  if [ $rc -ne 0 ] || [ -z "$summary" ]; then
    if [ -z "$summary" ]; then
      echo "$name: no summary line (exit $rc)"
      total_failed=$((total_failed + 1))
    fi
    failed_files+=("$name")
  fi
done

echo
if [ ${#failed_files[@]} -gt 0 ]; then
  echo "failed: ${failed_files[*]}"
fi
echo "nvim: ${total_passed} passed, ${total_failed} failed"
[ ${#failed_files[@]} -eq 0 ]
