#!/usr/bin/env bash
# Installs SneakyCode as a command on PATH, in an environment of its own (`make install` runs this).
#
#   scripts/install.sh [SOURCE]     SOURCE: this clone (default), or a built wheel (what `make smoke` installs)
#
# Uses, in order, whichever the machine has: `uv tool install`, `pipx install`, or else a private virtual
# environment under $PREFIX/share/sneakycode with its commands linked into $PREFIX/bin (PREFIX defaults to
# ~/.local, whose bin/ is on PATH on most systems). This last way is what pipx does by hand; `pip install
# --user` is not used, since most Linux distributions now refuse it (PEP 668, "externally-managed-environment").
# SNEAKYCODE_INSTALLER=uv|pipx|venv picks one. Running it again upgrades in place.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source=${1:-$here}
prefix=${PREFIX:-$HOME/.local}
python=${PYTHON:-python3}
installer=${SNEAKYCODE_INSTALLER:-}
if [ -z "$installer" ]; then
  if command -v uv >/dev/null 2>&1; then installer=uv
  elif command -v pipx >/dev/null 2>&1; then installer=pipx
  else installer=venv
  fi
fi

case "$installer" in
  uv)
    uv tool install --force --reinstall "$source"
    bin_dir=$(uv tool dir --bin)
    ;;
  pipx)
    pipx install --force "$source"
    bin_dir=${PIPX_BIN_DIR:-$HOME/.local/bin}
    ;;
  venv)
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "install: SneakyCode needs Python 3.11 or newer; $python is $("$python" --version 2>&1)." >&2
      echo "install: name another with PYTHON=/path/to/python3.12 make install" >&2
      exit 1
    fi
    venv=$prefix/share/sneakycode/venv
    bin_dir=$prefix/bin
    rm -rf "$venv"
    "$python" -m venv "$venv"
    # pip 23.3 or newer matches extras by their normalised names (PEP 685): older pips warn that lxml "does
    # not provide the extra 'html_clean'" that trafilatura's justext asks for.
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade 'pip>=23.3'
    "$venv/bin/python" -m pip install --disable-pip-version-check -q "$source"
    mkdir -p "$bin_dir"
    for command in sneakycode sneakycode-acp; do
      ln -sf "$venv/bin/$command" "$bin_dir/$command"
    done
    ;;
  *)
    echo "install: SNEAKYCODE_INSTALLER must be uv, pipx or venv, not '$installer'" >&2
    exit 2
    ;;
esac

installed=$bin_dir/sneakycode
echo "installed: $("$installed" --version) as $installed (with $installer)"
if [ "$(command -v sneakycode || true)" != "$installed" ]; then
  echo "note: $bin_dir is not first on your PATH; add it, e.g. in ~/.profile or ~/.bashrc:"
  echo "  export PATH=\"$bin_dir:\$PATH\""
fi
echo "next: cd your-project && sneakycode"
