// How the CLI shows progress on stderr: kernels conformed before a first run (a line
// rewritten in place on a terminal), and long loops of a run (a line every second).
#pragma once

#include <rung/session.h>

namespace rung::cli {

// Conformance progress ("conforming 12/40: softmax f32"), silent for the first second.
ProgressCallback stderr_progress();
// Loop progress: the count, of the total when known, with the time and rate.
void print_loop_progress(const Progress& p);
// Both: conformance reports through the first, loops through the second.
ProgressCallback run_progress();

}  // namespace rung::cli
