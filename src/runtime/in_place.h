// In-place execution of elementwise ops: when an operand's value dies at an elementwise op
// (its last use, owned by the region) and has the result's dtype and shape, the result is
// written into that operand's storage instead of a fresh buffer. The host region walk
// (host_walk.cpp) runs such an op in chunks of rows — each chunk's operand rows are copied
// out, the op runs on them, and its result rows are written back over the rows just read —
// so the extra memory is one chunk, never a second full tensor. Results are bit-identical:
// every element is computed by the same kernel from the same operands.
//
// The planner (src/plan/planner.cpp) asks the same question with the same function, so the
// plan reuses exactly the buffers the executor reuses.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/graph/type.h"
#include "ops/host_tensor.h"

namespace rung::runtime {

// Rows per chunk: as many as fit in this many elements (at least one row).
inline constexpr std::uint64_t kInPlaceChunkElems = 16384;

struct OperandShape {
  DType dtype = DType::f32;
  ops::Extents shape;
  bool dies = false;  // its last use is this op and the region owns it
};

// The operand whose storage `opcode` may write its single result into (the first that
// qualifies), or nullopt: the op is in family `elementwise`, the operand dies here, has
// `result` dtype, one element per byte block (no packed types), rank >= 1, no zero extent,
// and its shape is the broadcast shape of all operands.
std::optional<std::size_t> in_place_operand(std::string_view opcode, std::span<const OperandShape> operands, DType result);

// Operand k broadcast along the rows (used whole by every chunk) rather than split by rows.
bool whole_in_every_chunk(const ops::Extents& operand, const ops::Extents& result);

}  // namespace rung::runtime
