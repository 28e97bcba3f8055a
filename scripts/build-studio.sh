#!/usr/bin/env bash
# Builds the studio app (docs/studio.md) into BUILD/studio/dist, where `rung studio` looks for
# it: npm ci in studio/ when node_modules is missing or older than the lock (offline from npm's
# cache after the first install), then the op catalogue from BUILD's native `rung ops --json`,
# tsc and vite. Usage: scripts/build-studio.sh [BUILD]   (default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$root/$build
export RUNG=${RUNG:-$build/tools/rung/rung}
[[ -x $RUNG ]] || { echo "build-studio: no rung at $RUNG (make build first, or set RUNG)" >&2; exit 1; }
cd "$root/studio"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --prefer-offline
fi
npm run --silent build -- --outDir "$build/studio/dist" --emptyOutDir
echo "build-studio: $build/studio/dist (start it with: $RUNG studio)"
