#include "frontend/weak_literal.h"
#include "ops/float_precision.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "ops/evaluate.h"
#include "ops/numerics/convert.h"

namespace rung::frontend {
namespace {

const char* op_name(WeakNum::Op op) {
  switch (op) {
    case WeakNum::Op::neg: return "neg";
    case WeakNum::Op::add: return "add";
    case WeakNum::Op::sub: return "sub";
    case WeakNum::Op::mul: return "mul";
    case WeakNum::Op::div: return "div";
    case WeakNum::Op::rem: return "remainder";
    default: return "";
  }
}

using ops::precision_of;
std::string leaf_text(const WeakNum& n) {
  return (n.negative ? "-" : "") + (n.is_float ? n.digits : std::to_string(n.magnitude));
}

// The range of an integer dtype, for the E2121 note.
std::string int_range(DType dt) {
  const DTypeInfo& info = dtype_info(dt);
  int bits = static_cast<int>(info.block_bytes) * 8;
  if (!info.is_signed) return "0 to " + std::to_string(bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1);
  std::uint64_t half = std::uint64_t{1} << (bits - 1);
  return "-" + std::to_string(half) + " to " + std::to_string(half - 1);
}

// One leaf as a scalar of `dt`, or a diagnostic.
std::optional<ops::HostTensor> leaf(const WeakNum& n, DType dt, DiagnosticSink& d) {
  const DTypeInfo& info = dtype_info(dt);
  if (dt == DType::boolean || info.is_quantized) {
    d.error("E2122", "a number literal cannot be " + std::string(dtype_name(dt)))
        .primary(n.span, "`" + leaf_text(n) + "` used as " + std::string(dtype_name(dt)))
        .note(dt == DType::boolean ? "write `true` or `false`, or compare: `x != 0`" : "quantize an f32 tensor instead");
    return std::nullopt;
  }
  if (n.is_float) {
    if (!info.is_float) {
      d.error("E2122", "a float literal cannot take the integer type " + std::string(dtype_name(dt)))
          .primary(n.span, "`" + leaf_text(n) + "` used as " + std::string(dtype_name(dt)))
          .note("an integer literal may become a float, never the other way round; convert with cast(x, to: " +
                std::string(dtype_name(dt)) + ") if truncation is meant");
      return std::nullopt;
    }
    ops::HostTensor t(dt, {});
    // strtof/strtod round the decimal digits once, straight to the type (no double rounding
    // for f32), overflow to inf and underflow to a subnormal or zero as IEEE says.
    if (dt == DType::f32) {
      float f = std::strtof(n.digits.c_str(), nullptr);
      t.store_f32(0, n.negative ? -f : f);
    } else {
      double v = std::strtod(n.digits.c_str(), nullptr);
      t.store_f64(0, n.negative ? -v : v);
    }
    return t;
  }
  ops::HostTensor t(dt, {});
  if (info.is_float) {  // an integer becoming a float: one RNE rounding of the exact value
    t.store_f64(0, num::int_to_double_rounded(n.negative, n.magnitude, precision_of(dt)));
    return t;
  }
  int bits = static_cast<int>(info.block_bytes) * 8;
  std::uint64_t max = info.is_signed ? (std::uint64_t{1} << (bits - 1)) - (n.negative ? 0 : 1)
                      : n.negative   ? 0
                      : bits == 64   ? std::numeric_limits<std::uint64_t>::max()
                                     : (std::uint64_t{1} << bits) - 1;
  if (n.magnitude > max) {
    d.error("E2121", "the literal `" + leaf_text(n) + "` does not fit in " + std::string(dtype_name(dt)))
        .primary(n.span, "out of the range of " + std::string(dtype_name(dt)))
        .note(std::string(dtype_name(dt)) + " holds " + int_range(dt) + "; literals are never wrapped");
    return std::nullopt;
  }
  t.store_int(0, n.negative ? 0 - n.magnitude : n.magnitude);
  return t;
}

// The expression computed in `dt` by the reference kernels (what the op gives at run time).
std::optional<ops::HostTensor> eval(const WeakNum& n, DType dt, DiagnosticSink& d) {
  if (n.op == WeakNum::Op::leaf) return leaf(n, dt, d);
  std::vector<ops::HostTensor> in;
  for (const auto* side : {n.a.get(), n.b.get()}) {
    if (!side) continue;
    auto v = eval(*side, dt, d);
    if (!v) return std::nullopt;
    in.push_back(std::move(*v));
  }
  DiagnosticSink kd;
  auto out = ops::evaluate(op_name(n.op), in, {}, kd);
  if (!out) {  // the op does not take dt (`%` of f16, say): its own message, at the literal
    std::string why = kd.all().empty() ? "no kernel" : kd.all().front().message;
    d.error("E2103", "this literal expression cannot be computed as " + std::string(dtype_name(dt)))
        .primary(n.span).note(why);
    return std::nullopt;
  }
  return std::move(out->front());
}

}  // namespace

bool WeakLit::is_float() const {
  for (const auto& e : elems)
    if (e->is_float) return true;
  return false;
}

WeakNumPtr weak_int_leaf(std::uint64_t magnitude, Span at) {
  auto n = std::make_shared<WeakNum>();
  n->magnitude = magnitude;
  n->span = at;
  return n;
}

WeakNumPtr weak_float_leaf(std::string digits, Span at) {
  auto n = std::make_shared<WeakNum>();
  n->is_float = true;
  n->digits = std::move(digits);
  n->span = at;
  return n;
}

WeakNumPtr weak_negate(const WeakNumPtr& x, Span at) {
  if (x->op == WeakNum::Op::leaf) {
    auto n = std::make_shared<WeakNum>(*x);
    n->negative = !n->negative;
    n->span = at;
    return n;
  }
  return weak_node(WeakNum::Op::neg, x, nullptr, at);
}

WeakNumPtr weak_node(WeakNum::Op op, WeakNumPtr a, WeakNumPtr b, Span at) {
  std::uint32_t depth = 1 + std::max(a->depth, b ? b->depth : 0u);
  if (depth > kMaxWeakDepth) return nullptr;
  auto n = std::make_shared<WeakNum>();
  n->depth = depth;
  n->op = op;
  n->is_float = a->is_float || (b && b->is_float);
  n->a = std::move(a);
  n->b = std::move(b);
  n->span = at;
  return n;
}

DType default_literal_dtype(const WeakLit& lit) { return lit.is_float() ? DType::f32 : DType::i64; }

std::optional<Bytes> evaluate_weak(const WeakLit& lit, DType dt, DiagnosticSink& d) {
  Bytes out;
  for (const auto& e : lit.elems) {
    auto v = eval(*e, dt, d);
    if (!v) return std::nullopt;
    auto b = v->bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

std::optional<std::int64_t> weak_i64(const WeakLit& lit) {
  if (!lit.shape.empty() || lit.elems.size() != 1 || lit.is_float()) return std::nullopt;
  DiagnosticSink quiet;
  auto v = eval(*lit.elems[0], DType::i64, quiet);
  if (!v) return std::nullopt;
  return v->load_i64(0);
}

}  // namespace rung::frontend
