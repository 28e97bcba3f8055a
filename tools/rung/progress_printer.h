// Prints runtime::Progress on stderr for the CLI: on a terminal one line rewritten in place
// (cleared when the phase ends), otherwise one plain line per item, so logs keep them.
#pragma once

#include "runtime/progress.h"

namespace rung::cli {

runtime::ProgressFn stderr_progress();

}  // namespace rung::cli
