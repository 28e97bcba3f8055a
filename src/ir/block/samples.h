// A small BlockIR program with control flow and effects, for tests, the .keg corpus and the
// fuzzer: fn main() !io: x = init(); lo, hi = bounds(); for i in lo..hi { x = step(x) };
// print "x =" x; return x. Its graph has no exports: main lives only in BlockIR.
#pragma once

#include "ir/block/block.h"

namespace rung::block {
Program sample_loop_program();
}  // namespace rung::block
