#!/usr/bin/env bash
# Runs every headless Neovim test of the plugin: the pure unit tests and the
# integration tests against the real `scv` binary (built here unless $SCV_BIN
# names one). Each test file runs in its own Neovim with its own temporary
# SCV_HOME and workspace. Exits non-zero when any file fails.
#
# The suite runs in two legs: on the `nvim` of the PATH (Debian's 0.7.2) and
# on a current Neovim unpacked from $SCV_NVIM_TARBALL (default
# ../shared/tools/nvim-0.11.0-linux-x86_64.tar.gz next to the repository)
# into a cache directory; the second leg says it skipped when the tarball is
# absent. SCV_NVIM_LEGS="system" or "current" runs one leg only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# A whole test file never runs longer than this (every wait inside is bounded
# far below it; this only catches a hung editor). A file that fails to load
# never reaches the harness's quit, so the "cquit 3" after it ends Neovim.
FILE_TIMEOUT_SECONDS=${SCV_NVIM_FILE_TIMEOUT:-300}
CURRENT_TARBALL=${SCV_NVIM_TARBALL:-$repo/../shared/tools/nvim-0.11.0-linux-x86_64.tar.gz}
CACHE_DIR=${SCV_NVIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scv-test}
LEGS=${SCV_NVIM_LEGS:-system current}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${SCV_BIN:-}" ]; then
  echo "building scv"
  (cd "$repo" && go build -o "$work/bin/scv" ./cmd/scv)
  SCV_BIN="$work/bin/scv"
fi
SCV_BIN=$(cd "$(dirname "$SCV_BIN")" && pwd)/$(basename "$SCV_BIN")
export SCV_BIN

# run_leg LABEL NVIM: every test file on one Neovim.
run_leg() {
  local leg=$1 nvim_bin=$2
  echo
  echo "=== nvim leg: $leg ($("$nvim_bin" --version | head -1))"
  local file name dir out rc summary p f
  for file in "${files[@]}"; do
    file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
    name=$(basename "$file" .lua)
    dir="$work/$leg/$name"
    mkdir -p "$dir/home" "$dir/workspace"
    echo
    echo "--- $name"
    set +e
    out=$(cd "$dir/workspace" && SCV_HOME="$dir/home" SCV_SOCKET="$dir/home/server.sock" \
      SCV_TEST_WORKSPACE="$dir/workspace" \
      XDG_CACHE_HOME="$dir/xdg/cache" XDG_STATE_HOME="$dir/xdg/state" XDG_DATA_HOME="$dir/xdg/data" \
      XDG_CONFIG_HOME="$dir/xdg/config" \
      timeout "$FILE_TIMEOUT_SECONDS" "$nvim_bin" --headless -u "$here/minimal_init.lua" \
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
      failed_files+=("$leg/$name")
    fi
  done
}

# current_nvim: unpack the tarball into the cache once (atomically: a
# half-unpacked directory is never taken for a ready one) and print the binary.
current_nvim() {
  local name dest tmp
  name=$(basename "$CURRENT_TARBALL" .tar.gz)
  dest="$CACHE_DIR/$name"
  if [ ! -x "$dest/bin/nvim" ]; then
    mkdir -p "$CACHE_DIR"
    tmp=$(mktemp -d "$CACHE_DIR/unpack.XXXXXX")
    tar -xzf "$CURRENT_TARBALL" -C "$tmp"
    rm -rf "$dest"
    mv "$tmp/$name" "$dest"
    rm -rf "$tmp"
  fi
  echo "$dest/bin/nvim"
}

total_passed=0
total_failed=0
failed_files=()
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=("$here"/unit_*.lua "$here"/integration_*.lua)
fi

for leg in $LEGS; do
  case $leg in
    system)
      command -v nvim >/dev/null || { echo "nvim not found (apt-get install -y neovim)"; exit 1; }
      run_leg system "$(command -v nvim)"
      ;;
    current)
      if [ ! -f "$CURRENT_TARBALL" ]; then
        echo
        echo "=== nvim leg: current — SKIPPED: $CURRENT_TARBALL is absent"
        continue
      fi
      run_leg current "$(current_nvim)"
      ;;
    *)
      echo "unknown leg '$leg' in SCV_NVIM_LEGS (system|current)"
      exit 2
      ;;
  esac
done

echo
if [ ${#failed_files[@]} -gt 0 ]; then
  echo "failed: ${failed_files[*]}"
fi
echo "nvim: ${total_passed} passed, ${total_failed} failed"
[ ${#failed_files[@]} -eq 0 ]
