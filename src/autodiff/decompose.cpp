#include "autodiff/decompose.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "ops/host_tensor.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"

namespace rung::autodiff {
namespace {

using Values = std::vector<ValueRef>;
using Decomposer = std::function<std::optional<Values>(Emitter&, const Values&, const ops::Attrs&, DecomposeFor)>;

std::int64_t axis_of(std::int64_t axis, std::size_t rank) { return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis; }

std::vector<std::int64_t> trailing_axes(std::int64_t from, std::size_t rank) {
  std::vector<std::int64_t> axes;
  for (auto a = from; a < static_cast<std::int64_t>(rank); ++a) axes.push_back(a);
  return axes;
}

std::optional<std::uint64_t> static_extent(Emitter& e, ValueRef v, std::size_t dim, const char* what) {
  const Dim& d = e.type(v).shape.at(dim);
  if (!d.is_static()) {
    e.fail(std::string("needs a static ") + what + " (it is " + d.to_string() + ")");
    return std::nullopt;
  }
  return d.extent();
}

ValueRef reduce(Emitter& e, const char* op, ValueRef x, std::vector<std::int64_t> axes, bool keep) {
  return e.op(op, {x}, {{"axes", std::move(axes)}, {"keepdims", keep}});
}

ValueRef scalar_like(Emitter& e, ValueRef like, double v) { return e.scalar(e.type(like).dtype, v); }

// mean = csum / n; var = csum(d*d) / n; r = 1 / sqrt(var + eps) (the kernels' steps).
std::optional<Values> layer_norm(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef x = in[0];
  auto axes = trailing_axes(axis_of(a.integer("axis"), e.type(x).rank()), e.type(x).rank());
  ValueRef mean = reduce(e, "mean", x, axes, true);
  ValueRef d = e.op("sub", {x, mean});
  ValueRef var = reduce(e, "mean", e.op("mul", {d, d}), axes, true);
  ValueRef eps = scalar_like(e, x, static_cast<float>(a.real("eps")));
  ValueRef r = e.op("div", {scalar_like(e, x, 1.0), e.op("sqrt", {e.op("add", {var, eps})})});
  ValueRef y = e.op("mul", {d, r});
  if (in.size() > 1) y = e.op("mul", {y, in[1]});
  if (in.size() > 2) y = e.op("add", {y, in[2]});
  return Values{y};
}

std::optional<Values> rms_norm(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef x = in[0];
  auto axes = trailing_axes(axis_of(a.integer("axis"), e.type(x).rank()), e.type(x).rank());
  ValueRef ms = reduce(e, "mean", e.op("mul", {x, x}), axes, true);
  ValueRef eps = scalar_like(e, x, static_cast<float>(a.real("eps")));
  ValueRef r = e.op("div", {scalar_like(e, x, 1.0), e.op("sqrt", {e.op("add", {ms, eps})})});
  ValueRef y = e.op("mul", {x, r});
  if (in.size() > 1) y = e.op("mul", {y, in[1]});
  return Values{y};
}

// Rotation of pairs (a, b) by theta(s, p): a' = a c - b s, b' = a s + b c. The angles use
// the kernel's exact f32 steps, as constants when positions are implicit.
std::optional<Values> rope(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef x = in[0];
  const TensorType xt = e.type(x);
  std::size_t rank = xt.rank();
  auto S = static_extent(e, x, rank - 2, "sequence length");
  if (!S) return std::nullopt;
  std::uint64_t D = xt.shape.back().extent(), half = D / 2;
  float base = static_cast<float>(a.real("base")), df = static_cast<float>(D);
  std::vector<double> inv(half);
  for (std::uint64_t p = 0; p < half; ++p) inv[p] = num::pow_f32(base, -(static_cast<float>(2 * p) / df));
  TensorType table{xt.dtype, {Dim::fixed(*S), Dim::fixed(half)}, xt.space};
  ValueRef c, sn;
  if (in.size() > 1) {
    ValueRef pos = e.op("cast", {in[1]}, {{"to", xt.dtype}});
    pos = e.op("reshape", {pos}, {{"shape", Shape{Dim::fixed(*S), Dim::fixed(1)}}});
    ValueRef theta = e.op("mul", {pos, e.constant(TensorType{xt.dtype, {Dim::fixed(1), Dim::fixed(half)}, xt.space}, inv)});
    c = e.op("cos", {theta});
    sn = e.op("sin", {theta});
  } else {
    std::vector<double> cv(*S * half), sv(*S * half);
    for (std::uint64_t s = 0; s < *S; ++s)
      for (std::uint64_t p = 0; p < half; ++p) {
        float theta = static_cast<float>(s) * static_cast<float>(inv[p]);
        cv[s * half + p] = num::cos_f32(theta);
        sv[s * half + p] = num::sin_f32(theta);
      }
    c = e.constant(table, cv);
    sn = e.constant(table, sv);
  }
  bool interleaved = a.string("layout") == "interleaved";
  auto last = static_cast<std::int64_t>(rank - 1);
  auto part = [&](std::int64_t start, std::int64_t step) {
    return e.op("slice", {x}, {{"starts", std::vector<std::int64_t>{start}},
                               {"ends", std::vector<std::int64_t>{start + static_cast<std::int64_t>(interleaved ? D : half)}},
                               {"axes", std::vector<std::int64_t>{last}},
                               {"steps", std::vector<std::int64_t>{step}}});
  };
  ValueRef A = interleaved ? part(0, 2) : part(0, 1);
  ValueRef B = interleaved ? part(1, 2) : part(static_cast<std::int64_t>(half), 1);
  ValueRef A2 = e.op("sub", {e.op("mul", {A, c}), e.op("mul", {B, sn})});
  ValueRef B2 = e.op("add", {e.op("mul", {A, sn}), e.op("mul", {B, c})});
  ValueRef y = e.op("concat", {A2, B2}, {{"axis", last}});
  if (interleaved) {  // [a'0..a'h-1, b'0..b'h-1] -> [a'0, b'0, a'1, b'1, ...]
    std::vector<double> idx(D);
    for (std::uint64_t p = 0; p < half; ++p) {
      idx[2 * p] = static_cast<double>(p);
      idx[2 * p + 1] = static_cast<double>(half + p);
    }
    ops::HostTensor t(DType::i64, {D});
    for (std::uint64_t i = 0; i < D; ++i) t.store_int(i, static_cast<std::uint64_t>(idx[i]));
    ValueRef order = e.builder().constant(t.type(), Bytes(t.bytes().begin(), t.bytes().end()));
    y = e.op("gather", {y, order}, {{"axis", last}});
  }
  return Values{y};
}

// softmax(q k^T * scale [+ float mask]) over allowed keys, then times v; a query with no
// allowed key gives 0 (the kernel's rule).
std::optional<Values> attention(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef q = in[0], k = in[1], v = in[2];
  const TensorType qt = e.type(q);
  DType dt = qt.dtype;
  float scale;
  if (a.has("scale")) {
    scale = static_cast<float>(a.real("scale"));
  } else {
    auto D = static_extent(e, q, qt.rank() - 1, "head dim");
    if (!D) return std::nullopt;
    scale = 1.0f / num::sqrt_f32(static_cast<float>(*D));
  }
  ValueRef s = e.op("mul", {e.op("matmul", {q, k}, {{"transpose_b", true}}), e.scalar(dt, scale)});
  std::optional<ValueRef> allowed;
  if (in.size() > 3) {
    if (e.type(in[3]).dtype == DType::boolean) allowed = in[3];
    else s = e.op("add", {s, in[3]});
  }
  if (a.boolean("causal")) {
    auto Sq = static_extent(e, q, qt.rank() - 2, "query length for the causal mask");
    auto Sk = Sq ? static_extent(e, k, e.type(k).rank() - 2, "key length for the causal mask") : std::nullopt;
    if (!Sk) return std::nullopt;
    ops::HostTensor m(DType::boolean, {*Sq, *Sk});
    for (std::uint64_t i = 0; i < *Sq; ++i)
      for (std::uint64_t j = 0; j < *Sk; ++j) m.store_bool(i * *Sk + j, j + *Sq <= i + *Sk);
    ValueRef causal = e.builder().constant(m.type(), Bytes(m.bytes().begin(), m.bytes().end()));
    allowed = allowed ? e.op("logical_and", {*allowed, causal}) : causal;
  }
  auto last = static_cast<std::int64_t>(e.type(s).rank() - 1);
  if (allowed) s = e.op("where", {*allowed, s, e.scalar(dt, -INFINITY)});
  ValueRef p = e.op("softmax", {s}, {{"axis", last}});
  if (allowed) p = e.op("where", {*allowed, p, e.scalar(dt, 0.0)});  // rows with no allowed key: 0, not NaN
  return Values{e.op("matmul", {p, v})};
}

std::optional<Values> ffn_swiglu(Emitter& e, const Values& in, const ops::Attrs&, DecomposeFor) {
  ValueRef gate = e.op("silu", {e.op("linear", {in[0], in[1]})});
  ValueRef up = e.op("linear", {in[0], in[2]});
  return Values{e.op("linear", {e.op("mul", {gate, up}), in[3]})};
}

std::optional<Values> ffn_gelu(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  Values first{in[0], in[1]};
  if (in.size() > 3) first.push_back(in[3]);
  ValueRef h = e.op("gelu", {e.op("linear", first)}, {{"approximate", a.string("approximate")}});
  Values second{h, in[2]};
  if (in.size() > 4) second.push_back(in[4]);
  return Values{e.op("linear", second)};
}

std::optional<Values> softmax(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  std::vector<std::int64_t> axis{axis_of(a.integer("axis"), e.type(in[0]).rank())};
  ValueRef sh = e.op("sub", {in[0], reduce(e, "max", in[0], axis, true)});
  ValueRef ex = e.op("exp", {sh});
  return Values{e.op("div", {ex, reduce(e, "sum", ex, axis, true)})};
}

std::optional<Values> log_softmax(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  std::vector<std::int64_t> axis{axis_of(a.integer("axis"), e.type(in[0]).rank())};
  ValueRef sh = e.op("sub", {in[0], reduce(e, "max", in[0], axis, true)});
  return Values{e.op("sub", {sh, e.op("log", {reduce(e, "sum", e.op("exp", {sh}), axis, true)})})};
}

std::optional<Values> logsumexp(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  const auto& axes = a.integers("axes");
  bool keep = a.boolean("keepdims");
  ValueRef sh = e.op("sub", {in[0], reduce(e, "max", in[0], axes, true)});
  ValueRef lse = e.op("log", {reduce(e, "sum", e.op("exp", {sh}), axes, keep)});
  return Values{e.op("add", {lse, reduce(e, "max", in[0], axes, keep)})};
}

std::optional<Values> cross_entropy(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef logits = in[0], targets = in[1];
  const TensorType lt = e.type(logits);
  auto depth = static_extent(e, logits, lt.rank() - 1, "class dimension");
  if (!depth) return std::nullopt;
  auto last = static_cast<std::int64_t>(lt.rank() - 1);
  ValueRef lsm = e.op("log_softmax", {logits}, {{"axis", last}});
  ValueRef oh = e.op("one_hot", {targets}, {{"depth", static_cast<std::int64_t>(*depth)}, {"dtype", lt.dtype}});
  ValueRef row = e.op("neg", {reduce(e, "sum", e.op("mul", {lsm, oh}), {last}, false)});
  std::optional<ValueRef> mask;
  if (a.has("ignore_index")) {
    ValueRef ignore = e.scalar(e.type(targets).dtype, static_cast<double>(a.integer("ignore_index")));
    mask = e.op("ne", {targets, ignore});
    row = e.op("where", {*mask, row, e.scalar(lt.dtype, 0.0)});
  }
  const std::string& reduction = a.string("reduction");
  if (reduction == "none") return Values{row};
  ValueRef total = reduce(e, "sum", row, {}, false);
  if (reduction == "sum") return Values{total};
  ValueRef n = mask ? reduce(e, "sum", e.op("cast", {*mask}, {{"to", lt.dtype}}), {}, false)
                    : reduce(e, "sum", e.op("cast", {e.op("ones_like", {targets})}, {{"to", lt.dtype}}), {}, false);
  return Values{e.op("div", {total, n})};
}

std::optional<Values> mse(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor) {
  ValueRef d = e.op("sub", {in[0], in[1]});
  ValueRef sq = e.op("mul", {d, d});
  const std::string& reduction = a.string("reduction");
  if (reduction == "none") return Values{sq};
  return Values{reduce(e, reduction == "sum" ? "sum" : "mean", sq, {}, false)};
}

// linear_q with float compute is linear(x, dequantize(w), b). Its gradient uses the same
// formula for int8 compute too (a straight-through estimate of the activation rounding).
std::optional<Values> linear_q(Emitter& e, const Values& in, const ops::Attrs& a, DecomposeFor purpose) {
  if (purpose == DecomposeFor::f64_reference && a.string("compute") == "int8") {
    e.fail("with compute = int8 is piecewise constant in x (its activations are quantized); use compute = float");
    return std::nullopt;
  }
  Values args{in[0], e.op("dequantize", {in[1]}, {{"to", e.type(in[0]).dtype}})};
  if (in.size() > 2) args.push_back(in[2]);
  return Values{e.op("linear", args)};
}

const std::map<std::string, Decomposer, std::less<>>& table() {
  static const std::map<std::string, Decomposer, std::less<>> t = {
      {"layer_norm", layer_norm}, {"rms_norm", rms_norm},       {"rope", rope},           {"attention", attention},
      {"ffn_swiglu", ffn_swiglu}, {"ffn_gelu", ffn_gelu},       {"softmax", softmax},     {"log_softmax", log_softmax},
      {"logsumexp", logsumexp},   {"cross_entropy", cross_entropy}, {"mse", mse},         {"linear_q", linear_q},
  };
  return t;
}

bool is_narrow_float(DType d) { return d == DType::f16 || d == DType::bf16; }

}  // namespace

bool has_decomposition(std::string_view op) { return table().count(op) > 0; }

std::optional<std::vector<ValueRef>> decompose(Emitter& e, std::string_view op, const std::vector<ValueRef>& inputs,
                                               const ops::Attrs& attrs, DecomposeFor purpose) {
  auto it = table().find(op);
  if (it == table().end()) {
    e.fail("has no decomposition");
    return std::nullopt;
  }
  // f16/bf16 composites compute in f32: widen the float operands, narrow the results.
  std::optional<DType> narrow;
  Values in = inputs;
  for (auto& v : in)
    if (is_narrow_float(e.type(v).dtype)) {
      narrow = e.type(v).dtype;
      v = e.op("cast", {v}, {{"to", DType::f32}});
    }
  auto out = it->second(e, in, attrs, purpose);
  if (out && narrow)
    for (auto& v : *out)
      if (e.type(v).dtype == DType::f32) v = e.op("cast", {v}, {{"to", *narrow}});
  return out;
}

}  // namespace rung::autodiff
