// `rung show --rung block`: BlockIR as text.
#pragma once

#include <string>

#include "ir/block/block.h"

namespace rung::block {
std::string print(const Program& p);
}  // namespace rung::block
