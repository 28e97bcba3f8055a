#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, and only the missing ones.
# Runs as root (CI, fresh machines) or through sudo; does nothing when all are present.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config ccache
  libssl-dev            # the test that rung's own SHA3-256 equals OpenSSL's
  libgtest-dev libgmock-dev googletest
  libcli11-dev nlohmann-json3-dev
  clang libclang-rt-14-dev   # libFuzzer targets (make fuzz TARGET=...)
)
# Later layers append their packages here (one place, so `make demo` and `make test` agree).
if [[ -f scripts/packages.extra ]]; then
  while read -r p _; do [[ -n "$p" && "$p" != \#* ]] && packages+=("$p"); done < scripts/packages.extra
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# npm packages go into the git-ignored build-deps/ once the Debian ones (npm itself) are there.
npm_setup() { if [[ -x scripts/setup-npm.sh ]]; then scripts/setup-npm.sh; fi; }
if [[ ${#missing[@]} -eq 0 ]]; then npm_setup; exit 0; fi

echo "setup: installing missing Debian packages: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
npm_setup
