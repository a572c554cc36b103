#!/usr/bin/env bash
# Installs what the build needs and the machine lacks, from Debian's packages. Idempotent: a
# machine that has everything is checked in well under a second and left alone.
#   scripts/setup.sh            native build and tests
set -euo pipefail

# package -> why we need it
packages=(
  "cmake:build system"
  "g++:native compiler"
  "make:build tool"
  "libxsimd-dev:SIMD kernels"
  "nlohmann-json3-dev:safetensors JSON header"
  "libcli11-dev:command-line parsing"
  "doctest-dev:native test suite"
)

missing=()
for entry in "${packages[@]}"; do
  name=${entry%%:*}
  if ! dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$name")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "setup: these packages are missing and installing them needs root:" >&2
  echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
