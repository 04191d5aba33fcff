#!/usr/bin/env bash
# Installs the Debian packages cephsim needs, only those that are missing.
# Safe to run again; does nothing when everything is there.
set -euo pipefail
need=(gcc ninja-build pkg-config libgsl-dev libsqlite3-dev libcjson-dev libcmocka-dev zlib1g-dev gnuplot-nox sqlite3 openmpi-bin libopenmpi-dev)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
