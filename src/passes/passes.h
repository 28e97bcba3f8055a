// Factories of the individual passes (one file each); registry.cpp lists them.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace rung {
std::unique_ptr<Pass> make_dce_pass();
std::unique_ptr<Pass> make_inline_pass();
std::unique_ptr<Pass> make_fold_pass();
std::unique_ptr<Pass> make_simplify_pass();
std::unique_ptr<Pass> make_layout_pass();
std::unique_ptr<Pass> make_fuse_pass();
std::unique_ptr<Pass> make_mixed_bf16_pass();
}  // namespace rung
