// Untyped number literals (docs/language.md, "Literals"). `7`, `-2.5`, `7 / 2 + 1` and
// `[1, 2, 3]` stay untyped until the place they are used gives them a dtype; then the whole
// literal expression is computed in that dtype by the ops' own reference kernels, so a folded
// literal is exactly what the same expression gives at run time. Integers are kept exact
// (sign and 64-bit magnitude), never in a double.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/attr.h"

namespace rung::frontend {

struct WeakNum {
  enum class Op : std::uint8_t { leaf, neg, add, sub, mul, div, rem };
  Op op = Op::leaf;
  bool is_float = false;        // a float leaf, or a node with one below it
  bool negative = false;        // leaf: written with a `-` (so -2^63 is one i64 leaf)
  std::uint64_t magnitude = 0;  // integer leaf
  std::string digits;           // float leaf: as written, without `_`
  std::uint32_t depth = 0;       // operations on the longest path to a leaf (<= kMaxWeakDepth)
  Span span;
  std::shared_ptr<const WeakNum> a, b;
};
// Evaluation and destruction recurse along a literal expression: this bounds the depth (a
// deeper one is E2090 at the operator that would exceed it).
inline constexpr std::uint32_t kMaxWeakDepth = 256;
using WeakNumPtr = std::shared_ptr<const WeakNum>;

// A literal scalar (shape empty) or tensor literal of literal elements, row-major.
struct WeakLit {
  std::vector<std::uint64_t> shape;
  std::vector<WeakNumPtr> elems;
  bool is_float() const;
};

WeakNumPtr weak_int_leaf(std::uint64_t magnitude, Span at);
WeakNumPtr weak_float_leaf(std::string digits, Span at);
// `-x`: a leaf flips its sign, anything else becomes a `neg` node.
// Both return null when the result would be deeper than kMaxWeakDepth.
WeakNumPtr weak_negate(const WeakNumPtr& x, Span at);
WeakNumPtr weak_node(WeakNum::Op op, WeakNumPtr a, WeakNumPtr b, Span at);

// The dtype a literal takes where nothing gives it one: i64, or f32 with a float leaf.
DType default_literal_dtype(const WeakLit& lit);

// The literal computed in `dt`: its little-endian element bytes. A float leaf meeting an
// integer or bool dtype (E2122) or an integer that does not fit `dt` (E2121) is reported,
// the leaf underlined, and nullopt returned.
std::optional<Bytes> evaluate_weak(const WeakLit& lit, DType dt, DiagnosticSink& d);

// The exact value of an integer literal scalar computed in i64 (what `slice` bounds and
// indices need); nullopt when `lit` is a float or tensor literal or does not fit in i64.
std::optional<std::int64_t> weak_i64(const WeakLit& lit);

}  // namespace rung::frontend
