// Prints runtime::Progress on stderr for the CLI.
#pragma once

#include "runtime/progress.h"

namespace rung::cli {

// Kernels conformed before a run: one updating line on a terminal, plain lines otherwise.
runtime::ProgressFn stderr_progress();
// A loop of the run: its step of the total (a for loop) or its iteration so far (a while loop).
void print_loop_progress(const runtime::Progress& p);

}  // namespace rung::cli
