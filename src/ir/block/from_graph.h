// Wraps a bare GraphIR (a .keg file) as a BlockIR program: one function per export whose
// body is a single compute statement. This way every `rung run` executes a BlockIR
// program, whatever the input was.
#pragma once

#include "ir/block/block.h"

namespace rung::block {
Program program_from_graph(Graph g, std::string module, Determinism determinism);
}  // namespace rung::block
