#!/usr/bin/env bash
# The studio's tests (docs/studio.md): installs studio/'s npm packages when they are missing
# or older than the lock (npm ci; offline from npm's cache after the first install), builds
# the app (the op catalogue from BUILD's native `rung ops --json`, tsc, vite), runs the unit
# and property tests (vitest), then the browser test: the built app served on 127.0.0.1,
# Debian's chromium headless driven by playwright-core. Screenshots: BUILD/studio-test/.
# Usage: scripts/test-studio.sh [BUILD]   (BUILD: the native build directory, default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$root/$build
export RUNG=${RUNG:-$build/tools/rung/rung}
chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x $RUNG ]] || { echo "test-studio: no rung at $RUNG (make build first, or set RUNG)" >&2; exit 1; }
[[ -x $chromium ]] || { echo "test-studio: no chromium at $chromium (Debian package chromium)" >&2; exit 1; }

cd "$root/studio"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --prefer-offline
fi
npm run --silent build
npm test --silent
CHROMIUM=$chromium node browser/studio.browser.mjs "$build/studio-test"
