#!/usr/bin/env bash
# The studio's tests (docs/studio.md): installs studio/'s npm packages when they are missing
# or older than the lock (npm ci; offline from npm's cache after the first install), builds
# the app into BUILD/studio/dist (scripts/build-studio.sh: the op catalogue from BUILD's native
# `rung ops --json`, tsc, vite), runs the unit and property tests (vitest), then the browser
# test: the built app served on 127.0.0.1 by `rung studio`,
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

"$root/scripts/build-studio.sh" "$build"
cd "$root/studio"
npm test --silent
# The browser test opens the app as users do: served by `rung studio` from BUILD/studio/dist.
CHROMIUM=$chromium STUDIO_APP=$build/studio/dist node browser/studio.browser.mjs "$build/studio-test"
