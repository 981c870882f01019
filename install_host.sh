#!/usr/bin/env bash
# Set up Waymark from this checkout: a .venv with the package, a launcher, and the native host
# registered for every Chromium-family browser found. Re-running is harmless.
#
#   ./install_host.sh                       install and register
#   ./install_host.sh --user-data-dir DIR   register into one browser profile folder only
#   ./install_host.sh --uninstall           remove the registrations and the launcher
#   ./install_host.sh --dev                 also install what the tests need
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"

args=()
uninstall=0
extras=""
while [ $# -gt 0 ]; do
  case "$1" in
    --uninstall) uninstall=1; args+=("--uninstall") ;;
    --dev) extras="[test]" ;;
    --user-data-dir) [ $# -ge 2 ] || { echo "--user-data-dir needs a folder" >&2; exit 2; }
                     args+=("--user-data-dir" "$2"); shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

if [ "$uninstall" = 1 ]; then
  if [ -x "$venv/bin/waymark" ]; then
    "$venv/bin/waymark" install-host --launcher-dir "$venv" ${args[@]+"${args[@]}"}
  else
    echo "nothing to uninstall: $venv/bin/waymark is missing" >&2
  fi
  exit 0
fi

"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Waymark needs Python 3.11 or newer")'
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -e "$here$extras"
"$venv/bin/waymark" install-host --launcher-dir "$venv" ${args[@]+"${args[@]}"}
