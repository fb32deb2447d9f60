#!/bin/sh
# install-deps.sh - installs the Debian packages the suite needs, when missing.
# Called by `make check` and `make demo`.  Needs root (apt-get) only when
# something is missing.  No other network access happens at build, run or
# test time.
set -eu

pkgs="gcc make python3 python3-yaml libyaml-dev libglpk-dev libsqlite3-dev sqlite3 gnuplot-nox libcriterion-dev"
# Parts add their own packages, one per line, in scripts/deps/<part>.txt.
here=$(dirname "$0")
for f in "$here"/deps/*.txt; do
    [ -f "$f" ] || continue
    pkgs="$pkgs $(grep -v '^#' "$f" | tr '\n' ' ')"
done

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=sudo
    else
        echo "install-deps: missing packages:$missing (run as root, or install them)" >&2
        exit 1
    fi
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
