// The canonical reduction tree (docs/semantics.md §5) as a streaming WGSL accumulator: values
// are pushed in sequence order; 32 lanes per chunk of 4096 (value i into lane i mod 32), the
// lanes folded 16, 8, 4, 2, 1 at the end of a chunk, chunk results fed the same way into a
// second level. The result equals the reference's tree bit for bit given the same element
// operations, for up to 2^24 values (generators refuse longer sequences).
#pragma once

#include <cstdint>
#include <string>

namespace rung::webgpu {

inline constexpr std::uint64_t kTreeMaxValues = 4096ull * 4096ull;

// Defines `<name>_reset()`, `<name>_push(v)`, `<name>_result()` over private state, with the
// element operation `op` (an expression in `a` and `b`) and its identity.
std::string tree_code(const std::string& name, const std::string& type, const std::string& op, const std::string& identity);

}  // namespace rung::webgpu
