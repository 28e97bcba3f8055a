// What the case generator must know about an op beyond its signature: the one table of
// per-op input constraints. An op without an entry gets the generic draw (operands that
// broadcast against one base shape, attributes drawn from their specs) and the shape rule
// rejects what does not fit. Entries exist where an op needs structure that rejection
// sampling cannot find: matching inner dims (matmul, attention, ffn), indices within a
// bound (gather, gather_elements, embedding, one_hot, cross_entropy), CSR matrices, q8_0/q4_0 blocks,
// attribute values that depend on the operands (reshape, transpose, slice, pad, concat).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/rng.h"
#include "conformance/values.h"
#include "ir/graph/attr.h"
#include "ops/host_tensor.h"
#include "ops/op_def.h"

namespace rung::conformance {

// How the values of one operand are drawn.
struct ValueRule {
  enum class Kind { general, indices, finite, non_negative, qblocks } kind = Kind::general;
  std::uint64_t bound = 0;  // indices: values in [0, bound)
  static ValueRule indices_below(std::uint64_t b) { return {Kind::indices, b}; }
};

// One case before values are filled: operand shapes (absent optional operands are left
// out at the end; a variadic operand may repeat), attributes as given (defaults are filled
// in by the op's own resolution), value rules, and operands built whole (CSR structure).
struct Draw {
  std::vector<ops::Extents> shapes;
  AttrMap attrs;
  std::map<std::size_t, ValueRule> values;
  std::map<std::size_t, ops::HostTensor> fixed;
};

// What a drawer sees: the op, the random stream, the case's dtype bindings (type variable
// -> dtype; a drawer may rebind secondary variables, e.g. attention's mask type), and the
// size budget.
struct DrawContext {
  const ops::OpDef& op;
  Rng& rng;
  std::map<std::string, DType> bindings;
  std::uint64_t max_elems = 8192;  // per operand

  DType bound(std::string_view var) const { return bindings.at(std::string(var)); }
  // A dimension: mostly small, with 0, 1, odd sizes and large primes.
  std::uint64_t dim();
  // A shape of `rank` dims within max_elems.
  ops::Extents shape(std::size_t rank);
  ops::Extents shape_any_rank(std::size_t max_rank = 4) { return shape(static_cast<std::size_t>(rng.below(max_rank + 1))); }
  // Keeps a shape within max_elems by shrinking its largest dims.
  ops::Extents fit(ops::Extents s) const;
};

using Drawer = std::function<std::optional<Draw>(DrawContext&)>;

struct OpConstraint {
  std::string op;
  Drawer draw;
};

// The table entry for `op`, or null (generic draw).
const OpConstraint* find_constraint(std::string_view op);
// Every entry (tests check that each names an op of the registry).
const std::vector<OpConstraint>& constraint_table();

// The generic draw: what ops without an entry get.
std::optional<Draw> generic_draw(DrawContext& c);
// A value for attribute `spec` drawn from its kind (and choices), for operands of `rank`.
AttrValue draw_attr(DrawContext& c, const ops::AttrSpec& spec, std::size_t rank);

}  // namespace rung::conformance
