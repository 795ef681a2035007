#!/usr/bin/env bash
# Installs the Debian packages csumtune builds and tests with. Idempotent: installs only
# what is missing, non-interactively; needs root (or sudo) only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config binutils python3
  libasmjit-dev libnlopt-cxx-dev libnlopt-dev libfmt-dev
  libgtest-dev libcli11-dev nlohmann-json3-dev gnuplot-nox
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root to install ${missing[*]}" >&2; exit 2; }
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
