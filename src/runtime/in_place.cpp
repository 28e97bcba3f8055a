#include "runtime/in_place.h"

#include "ops/registry.h"

namespace rung::runtime {
namespace {

// Numpy broadcasting of the operands' shapes; nullopt if they do not broadcast.
std::optional<ops::Extents> broadcast_shape(std::span<const OperandShape> operands) {
  std::size_t rank = 0;
  for (const auto& o : operands) rank = std::max(rank, o.shape.size());
  ops::Extents out(rank, 1);
  for (const auto& o : operands)
    for (std::size_t i = 0; i < o.shape.size(); ++i) {
      std::uint64_t& e = out[rank - o.shape.size() + i];
      std::uint64_t x = o.shape[i];
      if (x == e || x == 1) continue;
      if (e != 1) return std::nullopt;
      e = x;
    }
  return out;
}

}  // namespace

std::optional<std::size_t> in_place_operand(std::string_view opcode, std::span<const OperandShape> operands, DType result) {
  const ops::OpDef* def = ops::op_registry().find(opcode);
  if (!def || def->family != "elementwise" || operands.empty()) return std::nullopt;
  auto shape = broadcast_shape(operands);
  if (!shape || shape->empty()) return std::nullopt;
  for (auto e : *shape)
    if (e == 0) return std::nullopt;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const OperandShape& o = operands[k];
    if (o.dies && o.dtype == result && dtype_info(o.dtype).block_elems == 1 && o.shape == *shape) return k;
  }
  return std::nullopt;
}

bool whole_in_every_chunk(const ops::Extents& operand, const ops::Extents& result) {
  return operand.size() < result.size() || operand.empty() || operand[0] != result[0];
}

}  // namespace rung::runtime
