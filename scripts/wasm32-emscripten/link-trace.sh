#!/usr/bin/env bash
# The link launcher of the wasm32 `rung` (tools/rung/CMakeLists.txt): runs the link command
# and keeps what wasm-ld printed in TRACE_FILE, where its --trace-symbol lines say whether
# libm's fmaf/fma were linked (scripts/test-wasm.sh fails if so).
# Usage: link-trace.sh TRACE_FILE LINK_COMMAND...
set -o pipefail
trace=$1
shift
"$@" 2>&1 | tee "$trace"
