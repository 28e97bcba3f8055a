#include "cases.h"

#include <cmath>
#include <limits>

#include "ops/evaluate.h"
#include "ops/numerics/portable.h"

namespace rung::cpu::testing {

namespace {

using ops::Extents;
using ops::HostTensor;

const DType kFloats[] = {DType::f32, DType::f64, DType::f16, DType::bf16};
const DType kF32Like[] = {DType::f32, DType::f16, DType::bf16};
const DType kInts[] = {DType::i8, DType::i16, DType::i32, DType::i64, DType::u8, DType::u16, DType::u32, DType::u64};

bool is_float(DType t) { return dtype_info(t).is_float; }

// A value mix: mostly ordinary numbers, some special values (when `special`).
double draw(std::mt19937_64& rng, bool special, double scale = 4.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  if (special) {
    switch (rng() % 24) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return std::numeric_limits<double>::infinity();
      case 3: return -std::numeric_limits<double>::infinity();
      case 4: return std::numeric_limits<double>::quiet_NaN();
      case 5: return 1e-40;   // f32 subnormal
      case 6: return -3e-39;  // f32 subnormal
      case 7: return 1e-310;  // f64 subnormal
      default: break;
    }
  }
  return u(rng);
}

HostTensor rand_t(std::mt19937_64& rng, DType t, Extents shape, bool special = true, double scale = 4.0) {
  HostTensor x(t, shape);
  for (std::uint64_t i = 0; i < x.numel(); ++i) {
    if (is_float(t)) x.store_f64(i, draw(rng, special, scale));
    else if (t == DType::boolean) x.store_bool(i, rng() & 1);
    else x.store_int(i, rng() % 7 == 0 ? rng() : rng() % 41 - 20);
  }
  return x;
}

HostTensor idx_t(std::mt19937_64& rng, DType t, Extents shape, std::uint64_t bound) {
  HostTensor x(t, shape);
  for (std::uint64_t i = 0; i < x.numel(); ++i) x.store_int(i, bound ? rng() % bound : 0);
  return x;
}

// Shapes for elementwise and broadcasting tests: (a, b) pairs.
std::vector<std::pair<Extents, Extents>> broadcast_pairs() {
  return {{{}, {}},         {{0}, {0}},       {{1}, {1}},         {{17}, {17}},         {{3, 33}, {3, 33}},
          {{3, 33}, {33}},  {{3, 1}, {1, 35}}, {{2, 3, 5}, {3, 1}}, {{4099}, {}},         {{}, {67}},
          {{2, 0, 3}, {3}}, {{64, 100}, {64, 100}}};
}

std::vector<Extents> unary_shapes() { return {{}, {0}, {1}, {7}, {33}, {5, 19}, {2, 3, 4}, {20000}}; }

void unary_cases(std::vector<Case>& out, std::mt19937_64& rng, std::initializer_list<DType> types, AttrMap attrs = {}) {
  for (DType t : types)
    for (const auto& s : unary_shapes())
      out.push_back({std::string(dtype_name(t)) + ops::extents_to_string(s), {rand_t(rng, t, s)}, attrs});
}

void binary_cases(std::vector<Case>& out, std::mt19937_64& rng, std::vector<DType> types) {
  for (DType t : types)
    for (const auto& [a, b] : broadcast_pairs())
      out.push_back({std::string(dtype_name(t)) + ops::extents_to_string(a) + "x" + ops::extents_to_string(b),
                     {rand_t(rng, t, a), rand_t(rng, t, b)},
                     {}});
}

bool quantize_for_test(const HostTensor& x, DType to, HostTensor& out) {
  DiagnosticSink d;
  auto r = ops::evaluate("quantize", std::vector<HostTensor>{x}, {{"to", AttrValue(to)}}, d);
  if (!r) return false;
  out = r->front();
  return true;
}

std::vector<DType> all_numeric() {
  std::vector<DType> v(std::begin(kFloats), std::end(kFloats));
  v.insert(v.end(), std::begin(kInts), std::end(kInts));
  return v;
}

AttrMap axes(std::vector<std::int64_t> a, bool keep = false) { return {{"axes", AttrValue(std::move(a))}, {"keepdims", AttrValue(keep)}}; }

void reduce_cases(std::vector<Case>& out, std::mt19937_64& rng, std::vector<DType> types, bool nonempty, AttrMap extra = {}) {
  struct S { Extents shape; std::vector<std::int64_t> ax; };
  std::vector<S> shapes = {{{}, {}},        {{1}, {}},           {{7}, {0}},         {{5000}, {}},      {{9000}, {0}},
                           {{3, 33}, {1}},  {{3, 33}, {0}},      {{64, 100}, {0}},   {{6000, 20}, {0}}, {{2, 3, 5}, {0, 2}},
                           {{2, 3, 5}, {}}, {{4, 5, 17}, {1}},   {{4, 5, 17}, {-1}}};
  if (!nonempty) shapes.push_back({{3, 0}, {1}});
  for (DType t : types)
    for (const auto& s : shapes) {
      AttrMap a = axes(s.ax, rng() & 1);
      for (auto& [k, v] : extra) a.insert_or_assign(k, v);
      out.push_back({std::string(dtype_name(t)) + ops::extents_to_string(s.shape), {rand_t(rng, t, s.shape)}, a});
    }
}

void arg_cases(std::vector<Case>& out, std::mt19937_64& rng) {
  for (DType t : all_numeric())
    for (auto [shape, axis] : std::vector<std::pair<Extents, std::int64_t>>{{{7}, 0}, {{3, 33}, 1}, {{3, 33}, 0}, {{2, 3, 5}, -1}})
      out.push_back({std::string(dtype_name(t)), {rand_t(rng, t, shape)}, {{"axis", AttrValue(axis)}}});
}

void matmul_cases(std::vector<Case>& out, std::mt19937_64& rng) {
  struct M { std::uint64_t m, k, n; };
  std::vector<M> dims = {{1, 1, 1}, {0, 3, 4}, {3, 0, 4}, {7, 13, 5}, {33, 300, 47}, {64, 64, 64}, {100, 257, 67}, {13, 520, 130}};
  for (DType t : kFloats)
    for (const auto& d : dims)
      for (int form = 0; form < 4; ++form) {
        bool ta = form & 1, tb = form & 2;
        if (t != DType::f32 && d.k > 300) continue;
        Extents a = ta ? Extents{d.k, d.m} : Extents{d.m, d.k};
        Extents b = tb ? Extents{d.n, d.k} : Extents{d.k, d.n};
        out.push_back({std::string(dtype_name(t)) + " " + std::to_string(d.m) + "x" + std::to_string(d.k) + "x" + std::to_string(d.n) +
                           " form " + std::to_string(form),
                       {rand_t(rng, t, a, d.m < 10), rand_t(rng, t, b, d.m < 10)},
                       {{"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}}});
      }
  // Batched with broadcast batch dims.
  out.push_back({"batched", {rand_t(rng, DType::f32, {2, 3, 9, 17}, false), rand_t(rng, DType::f32, {3, 17, 11}, false)}, {}});
  out.push_back({"batched-bcast", {rand_t(rng, DType::f32, {1, 5, 40}, false), rand_t(rng, DType::f32, {4, 40, 70}, false)}, {}});
}

void conv_cases(std::vector<Case>& out, std::mt19937_64& rng) {
  using V = std::vector<std::int64_t>;
  struct C { std::string label; Extents x, w; bool bias; AttrMap attrs; };
  std::vector<C> cs = {
      {"1-D", {2, 3, 17}, {4, 3, 5}, true, {{"strides", AttrValue(V{2})}, {"pads", AttrValue(V{2, 1})}}},
      {"2-D 3x3 pad 1", {2, 5, 9, 11}, {7, 5, 3, 3}, true, {{"pads", AttrValue(V{1, 1, 1, 1})}}},
      {"K past the 256 k-block", {1, 40, 6, 7}, {9, 40, 3, 3}, false, {{"pads", AttrValue(V{1, 0, 0, 2})}, {"strides", AttrValue(V{1, 2})}}},
      {"groups dilation", {3, 6, 10, 8}, {9, 2, 2, 3}, true, {{"groups", AttrValue(std::int64_t{3})}, {"dilations", AttrValue(V{2, 1})}}},
      {"depthwise", {1, 4, 7, 7}, {4, 1, 3, 3}, true, {{"groups", AttrValue(std::int64_t{4})}, {"pads", AttrValue(V{1, 1, 1, 1})}}},
      {"1x1 direct", {2, 8, 5, 6}, {3, 8, 1, 1}, true, {}},
      {"1x1 strided", {1, 3, 5, 6}, {2, 3, 1, 1}, false, {{"strides", AttrValue(V{2, 2})}}},
      {"no images", {0, 2, 4}, {3, 2, 2}, true, {}},
      {"many images", {40, 2, 5}, {3, 2, 2}, true, {}},
  };
  for (DType t : kFloats)
    for (const auto& c : cs) {
      std::vector<HostTensor> in = {rand_t(rng, t, c.x), rand_t(rng, t, c.w, false)};
      if (c.bias) in.push_back(rand_t(rng, t, {c.w[0]}));
      out.push_back({std::string(dtype_name(t)) + " " + c.label, in, c.attrs});
    }
}

void conv_transpose_cases(std::vector<Case>& out, std::mt19937_64& rng) {
  using V = std::vector<std::int64_t>;
  struct C { std::string label; Extents x, w; bool bias; AttrMap attrs; };
  std::vector<C> cs = {
      {"1-D stride", {2, 3, 9}, {3, 4, 3}, true, {{"strides", AttrValue(V{2})}, {"pads", AttrValue(V{1, 0})}, {"output_padding", AttrValue(V{1})}}},
      {"2-D 4x4/2", {1, 6, 5, 4}, {6, 3, 4, 4}, true, {{"strides", AttrValue(V{2, 2})}, {"pads", AttrValue(V{1, 1, 1, 1})}}},
      {"K past the 256 k-block", {1, 70, 3, 3}, {70, 5, 2, 2}, false, {{"strides", AttrValue(V{1, 3})}}},
      {"groups dilation", {2, 4, 4, 5}, {4, 3, 2, 3}, true, {{"groups", AttrValue(std::int64_t{2})}, {"dilations", AttrValue(V{2, 1})}, {"strides", AttrValue(V{3, 2})}}},
      {"no images", {0, 2, 4}, {2, 3, 2}, true, {}},
  };
  for (DType t : kFloats)
    for (const auto& c : cs) {
      std::vector<HostTensor> in = {rand_t(rng, t, c.x), rand_t(rng, t, c.w, false)};
      if (c.bias) in.push_back(rand_t(rng, t, {c.w[1] * (c.attrs.count("groups") ? 2u : 1u)}));
      out.push_back({std::string(dtype_name(t)) + " " + c.label, in, c.attrs});
    }
}

void pool_cases(std::vector<Case>& out, std::mt19937_64& rng, bool avg) {
  using V = std::vector<std::int64_t>;
  struct P { std::string label; Extents x; AttrMap attrs; };
  std::vector<P> ps = {
      {"2x2/2", {2, 3, 8, 9}, {{"kernel_shape", AttrValue(V{2, 2})}, {"strides", AttrValue(V{2, 2})}}},
      {"3x3 pad ceil", {1, 2, 7, 10}, {{"kernel_shape", AttrValue(V{3, 3})}, {"strides", AttrValue(V{2, 2})},
                                        {"pads", AttrValue(V{1, 0, 1, 2})}, {"ceil_mode", AttrValue(true)}}},
      {"1-D dilated", {3, 2, 20}, {{"kernel_shape", AttrValue(V{3})}, {"dilations", AttrValue(V{2})}, {"pads", AttrValue(V{2, 1})}}},
      {"whole plane", {2, 70, 6, 6}, {{"kernel_shape", AttrValue(V{6, 6})}}},
      {"7x7 (49 taps)", {1, 1, 9, 9}, {{"kernel_shape", AttrValue(V{7, 7})}, {"pads", AttrValue(V{3, 3, 3, 3})}}},
  };
  for (DType t : kFloats)
    for (auto& p : ps) {
      AttrMap a = p.attrs;
      if (avg) a.insert_or_assign("count_include_pad", AttrValue(static_cast<bool>(rng() & 1)));
      out.push_back({std::string(dtype_name(t)) + " " + p.label, {rand_t(rng, t, p.x)}, a});
    }
  // Ties and signed zeros, where the scan order decides which element wins.
  HostTensor z = HostTensor::from_f64({1, 1, 2, 4}, std::vector<double>{-0.0, 0.0, 1.0, 1.0, 0.0, -0.0, 1.0, 1.0}, DType::f32);
  out.push_back({"ties", {z}, {{"kernel_shape", AttrValue(V{2, 2})}, {"strides", AttrValue(V{1, 2})}}});
}

}  // namespace

std::vector<Case> cases_for(const std::string& op, std::mt19937_64& rng) {
  std::vector<Case> out;
  auto f32like = {DType::f32, DType::f16, DType::bf16};
  auto floats = {DType::f32, DType::f64, DType::f16, DType::bf16};
  if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "remainder" || op == "maximum" || op == "minimum") {
    binary_cases(out, rng, all_numeric());
  } else if (op == "neg" || op == "abs") {
    std::vector<DType> t = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8, DType::i32, DType::i64, DType::u8};
    for (DType d : t) unary_cases(out, rng, {d});
  } else if (op == "square") {
    unary_cases(out, rng, {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i16, DType::u32});
  } else if (op == "sqrt" || op == "rsqrt" || op == "reciprocal") {
    unary_cases(out, rng, floats);
  } else if (op == "relu") {
    unary_cases(out, rng, {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8, DType::i64});
  } else if (op == "clamp") {
    unary_cases(out, rng, floats, {{"min", AttrValue(-1.5)}, {"max", AttrValue(2.0)}});
    unary_cases(out, rng, {DType::f32}, {{"min", AttrValue(1.0)}, {"max", AttrValue(-1.0)}});
  } else if (op == "exp" || op == "log" || op == "sin" || op == "cos" || op == "tanh" || op == "sigmoid" || op == "silu" ||
             op == "erf") {
    bool f64_too = op == "exp" || op == "log";  // rung's binary64 exp_f64 / log_f64
    unary_cases(out, rng, f64_too ? floats : f32like);
    // Wide ranges: exp's overflow (x > 88.7), gradual underflow to subnormals and zero.
    for (DType t : kF32Like)
      out.push_back({std::string(dtype_name(t)) + " wide", {rand_t(rng, t, {20011}, true, 120.0)}, {}});
    if (f64_too)  // binary64's overflow (x > 709.78) and subnormal results (x < -708.4)
      out.push_back({"f64 wide", {rand_t(rng, DType::f64, {20011}, true, 760.0)}, {}});
  } else if (op == "floor" || op == "ceil" || op == "round") {
    unary_cases(out, rng, floats);
    for (DType t : {DType::f32, DType::f64})  // halves and values past 2^23 / 2^52
      out.push_back({std::string(dtype_name(t)) + " wide", {rand_t(rng, t, {20011}, true, 1e17)}, {}});
  } else if (op == "asin" || op == "acos" || op == "atan") {
    unary_cases(out, rng, f32like);
    for (DType t : kF32Like) out.push_back({std::string(dtype_name(t)) + " in [-1, 1]", {rand_t(rng, t, {20011}, true, 1.0)}, {}});
  } else if (op == "bit_shift") {
    for (const char* dir : {"left", "right"}) {
      std::vector<Case> c;
      binary_cases(c, rng, {DType::u8, DType::u16, DType::u32, DType::u64});
      for (auto& k : c) {
        k.label += std::string(" ") + dir;
        k.attrs = {{"direction", AttrValue(std::string(dir))}};
        out.push_back(std::move(k));
      }
    }
  } else if (op == "gelu") {
    unary_cases(out, rng, f32like);
    unary_cases(out, rng, {DType::f32}, {{"approximate", AttrValue(std::string("tanh"))}});
  } else if (op == "pow") {
    binary_cases(out, rng, f32like);
  } else if (op == "eq" || op == "ne") {
    auto t = all_numeric();
    t.push_back(DType::boolean);
    binary_cases(out, rng, t);
  } else if (op == "lt" || op == "le" || op == "gt" || op == "ge") {
    binary_cases(out, rng, all_numeric());
  } else if (op == "logical_and" || op == "logical_or" || op == "logical_xor") {
    binary_cases(out, rng, {DType::boolean});
  } else if (op == "logical_not") {
    unary_cases(out, rng, {DType::boolean});
  } else if (op == "where") {
    for (DType t : {DType::f32, DType::f16, DType::i64, DType::boolean, DType::u8})
      for (const auto& [a, b] : broadcast_pairs())
        out.push_back({std::string(dtype_name(t)), {rand_t(rng, DType::boolean, b), rand_t(rng, t, a), rand_t(rng, t, b)}, {}});
  } else if (op == "cast") {
    std::vector<DType> all = all_numeric();
    all.push_back(DType::boolean);
    for (DType from : all)
      for (DType to : all)
        out.push_back({std::string(dtype_name(from)) + "->" + std::string(dtype_name(to)), {rand_t(rng, from, {37}, true, 3e5)},
                       {{"to", AttrValue(to)}}});
  } else if (op == "sum" || op == "prod") {
    reduce_cases(out, rng, all_numeric(), false);
  } else if (op == "mean") {
    reduce_cases(out, rng, {floats}, false);
  } else if (op == "max" || op == "min") {
    reduce_cases(out, rng, all_numeric(), true);
  } else if (op == "variance") {
    reduce_cases(out, rng, {floats}, false, {{"correction", AttrValue(std::int64_t{1})}});
  } else if (op == "logsumexp") {
    reduce_cases(out, rng, {floats}, false);
  } else if (op == "argmax" || op == "argmin") {
    arg_cases(out, rng);
  } else if (op == "matmul") {
    matmul_cases(out, rng);
  } else if (op == "conv") {
    conv_cases(out, rng);
  } else if (op == "conv_transpose") {
    conv_transpose_cases(out, rng);
  } else if (op == "max_pool" || op == "avg_pool") {
    pool_cases(out, rng, op == "avg_pool");
  } else if (op == "linear") {
    for (DType t : kFloats) {
      out.push_back({"bias", {rand_t(rng, t, {5, 300}), rand_t(rng, t, {33, 300}), rand_t(rng, t, {33})}, {}});
      out.push_back({"nobias", {rand_t(rng, t, {2, 3, 17}), rand_t(rng, t, {9, 17})}, {}});
      out.push_back({"k0", {rand_t(rng, t, {4, 0}), rand_t(rng, t, {3, 0})}, {}});
    }
  } else if (op == "softmax" || op == "log_softmax") {
    for (DType t : kF32Like)
      for (auto [s, ax] : std::vector<std::pair<Extents, std::int64_t>>{{{1}, 0}, {{7}, 0}, {{3, 33}, -1}, {{3, 33}, 0}, {{2, 5000}, 1}, {{2, 0}, 1}})
        out.push_back({std::string(dtype_name(t)), {rand_t(rng, t, s)}, {{"axis", AttrValue(ax)}}});
    out.push_back({"wide", {rand_t(rng, DType::f32, {7, 301}, false, 100.0)}, {{"axis", AttrValue(std::int64_t{-1})}}});
  } else if (op == "reshape") {
    out.push_back({"a", {rand_t(rng, DType::f32, {3, 4})}, {{"shape", AttrValue(Shape{Dim::fixed(2), Dim::fixed(6)})}}});
    out.push_back({"b", {rand_t(rng, DType::i8, {5})}, {{"shape", AttrValue(Shape{Dim::fixed(5), Dim::fixed(1)})}}});
  } else if (op == "broadcast_to") {
    out.push_back({"a", {rand_t(rng, DType::f32, {3, 1})}, {{"shape", AttrValue(Shape{Dim::fixed(2), Dim::fixed(3), Dim::fixed(5)})}}});
    out.push_back({"b", {rand_t(rng, DType::f16, {})}, {{"shape", AttrValue(Shape{Dim::fixed(7)})}}});
  } else if (op == "transpose") {
    out.push_back({"rev", {rand_t(rng, DType::f32, {3, 4, 5})}, {}});
    out.push_back({"perm", {rand_t(rng, DType::i64, {3, 4, 5})}, {{"perm", AttrValue(std::vector<std::int64_t>{1, 2, 0})}}});
    out.push_back({"2d", {rand_t(rng, DType::bf16, {33, 17})}, {{"perm", AttrValue(std::vector<std::int64_t>{1, 0})}}});
  } else if (op == "slice") {
    auto v = [](std::vector<std::int64_t> x) { return AttrValue(std::move(x)); };
    out.push_back({"a", {rand_t(rng, DType::f32, {10, 7})}, {{"starts", v({1, -3})}, {"ends", v({9, 100})}, {"steps", v({2, 1})}}});
    out.push_back({"neg", {rand_t(rng, DType::u16, {10, 7})}, {{"starts", v({-1})}, {"ends", v({-100})}, {"axes", v({1})}, {"steps", v({-2})}}});
    out.push_back({"empty", {rand_t(rng, DType::f32, {10, 7})}, {{"starts", v({5})}, {"ends", v({2})}}});
  } else if (op == "concat") {
    out.push_back({"ax1", {rand_t(rng, DType::f32, {2, 3}), rand_t(rng, DType::f32, {2, 0}), rand_t(rng, DType::f32, {2, 5})}, {{"axis", AttrValue(std::int64_t{1})}}});
    out.push_back({"ax0", {rand_t(rng, DType::i32, {1, 3}), rand_t(rng, DType::i32, {4, 3})}, {}});
  } else if (op == "gather") {
    out.push_back({"ax0", {rand_t(rng, DType::f32, {6, 5}), idx_t(rng, DType::i64, {4}, 6)}, {}});
    out.push_back({"ax1", {rand_t(rng, DType::f16, {3, 6, 2}), idx_t(rng, DType::i32, {2, 3}, 6)}, {{"axis", AttrValue(std::int64_t{1})}}});
    HostTensor bad = idx_t(rng, DType::i64, {3}, 6);
    bad.store_int(2, 9);
    out.push_back({"bad", {rand_t(rng, DType::f32, {6, 5}), bad}, {}});
  } else if (op == "cumsum") {
    int k = 0;
    for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::u8, DType::i64})
      for (const auto& s : std::vector<Extents>{{7}, {3, 33}, {2, 0, 3}, {40, 5, 6}, {1000}}) {
        std::int64_t axis = static_cast<std::int64_t>(k % s.size()) - (k % 3 == 0 ? static_cast<std::int64_t>(s.size()) : 0);
        out.push_back({std::string(dtype_name(t)) + ops::extents_to_string(s), {rand_t(rng, t, s)},
                       {{"axis", AttrValue(axis)}, {"exclusive", AttrValue(k % 2 == 1)}, {"reverse", AttrValue(k % 4 >= 2)}}});
        ++k;
      }
  } else if (op == "gather_elements") {
    out.push_back({"ax0", {rand_t(rng, DType::f32, {6, 5}), idx_t(rng, DType::i64, {9, 4}, 6)}, {}});
    out.push_back({"ax-1 i32", {rand_t(rng, DType::f16, {3, 6, 2}), idx_t(rng, DType::i32, {2, 6, 5}, 2)},
                   {{"axis", AttrValue(std::int64_t{-1})}}});
    out.push_back({"big", {rand_t(rng, DType::i64, {70, 300}), idx_t(rng, DType::u16, {70, 500}, 300)},
                   {{"axis", AttrValue(std::int64_t{1})}}});
    out.push_back({"empty", {rand_t(rng, DType::f32, {4, 3}), idx_t(rng, DType::i64, {0, 3}, 4)}, {}});
    HostTensor bad = idx_t(rng, DType::i64, {3, 5}, 6);
    bad.store_int(7, static_cast<std::uint64_t>(-1));
    out.push_back({"bad", {rand_t(rng, DType::f32, {6, 5}), bad}, {}});
  } else if (op == "scatter_add") {
    out.push_back({"f32", {rand_t(rng, DType::f32, {6, 5}), idx_t(rng, DType::i64, {9}, 6), rand_t(rng, DType::f32, {9, 5})}, {}});
    out.push_back({"i32", {rand_t(rng, DType::i32, {4, 3}), idx_t(rng, DType::u8, {7}, 3), rand_t(rng, DType::i32, {4, 7})}, {{"axis", AttrValue(std::int64_t{1})}}});
    out.push_back({"many", {rand_t(rng, DType::f64, {2, 3}), idx_t(rng, DType::i64, {5000}, 2), rand_t(rng, DType::f64, {5000, 3})}, {}});
  } else if (op == "pad") {
    auto v = [](std::vector<std::int64_t> x) { return AttrValue(std::move(x)); };
    for (std::string mode : {"constant", "edge", "reflect"})
      out.push_back({mode, {rand_t(rng, DType::f32, {4, 5})}, {{"pads", v({1, 2, 3, 0})}, {"mode", AttrValue(mode)}, {"value", AttrValue(2.5)}}});
  } else if (op == "resize") {
    auto v = [](std::vector<std::int64_t> x) { return AttrValue(std::move(x)); };
    for (DType t : kFloats)
      for (std::string mode : {"linear", "cubic"})
        out.push_back({mode + " " + std::string(dtype_name(t)), {rand_t(rng, t, {2, 5, 6})},
                       {{"sizes", v({-1, 9, 3})}, {"mode", AttrValue(mode)}, {"coordinate_mode", AttrValue("align_corners")}}});
    out.push_back({"nearest i16", {rand_t(rng, DType::i16, {3, 4, 5})}, {{"sizes", v({7, 2, 5})}, {"nearest_mode", AttrValue("ceil")}}});
    out.push_back({"crop", {rand_t(rng, DType::f32, {40, 33})},
                   {{"sizes", v({70, 20})}, {"mode", AttrValue("linear")}, {"coordinate_mode", AttrValue("tf_crop_and_resize")},
                    {"roi", AttrValue(std::vector<double>{-0.2, 0.1, 0.9, 1.4})}, {"extrapolation_value", AttrValue(-0.0)}}});
  } else if (op == "iota") {
    out.push_back({"i64", {}, {{"shape", AttrValue(Shape{Dim::fixed(3), Dim::fixed(4)})}, {"axis", AttrValue(std::int64_t{1})}}});
    out.push_back({"f16", {}, {{"shape", AttrValue(Shape{Dim::fixed(3000)})}, {"dtype", AttrValue(DType::f16)}}});
  } else if (op == "arange") {
    out.push_back({"f32", {}, {{"start", AttrValue(0.5)}, {"stop", AttrValue(10.0)}, {"step", AttrValue(0.3)}, {"dtype", AttrValue(DType::f32)}}});
    out.push_back({"i32", {}, {{"start", AttrValue(10.0)}, {"stop", AttrValue(-5.0)}, {"step", AttrValue(-2.0)}, {"dtype", AttrValue(DType::i32)}}});
  } else if (op == "one_hot") {
    out.push_back({"f32", {idx_t(rng, DType::i64, {2, 5}, 4)}, {{"depth", AttrValue(std::int64_t{4})}}});
    out.push_back({"bool", {idx_t(rng, DType::u8, {7}, 3)}, {{"depth", AttrValue(std::int64_t{3})}, {"dtype", AttrValue(DType::boolean)}}});
  } else if (op == "layer_norm") {
    for (DType t : kF32Like) {
      out.push_back({"gb", {rand_t(rng, t, {3, 40}, false), rand_t(rng, t, {40}), rand_t(rng, t, {40})}, {}});
      out.push_back({"plain", {rand_t(rng, t, {2, 3, 5})}, {{"axis", AttrValue(std::int64_t{1})}}});
      out.push_back({"special", {rand_t(rng, t, {4, 9})}, {}});
    }
  } else if (op == "rms_norm") {
    for (DType t : kF32Like) {
      out.push_back({"g", {rand_t(rng, t, {3, 40}, false), rand_t(rng, t, {40})}, {}});
      out.push_back({"special", {rand_t(rng, t, {5000})}, {}});
    }
  } else if (op == "rope") {
    for (DType t : kF32Like) {
      out.push_back({"half", {rand_t(rng, t, {2, 5, 8})}, {}});
      out.push_back({"inter", {rand_t(rng, t, {5, 6}), idx_t(rng, DType::i64, {5}, 100)}, {{"layout", AttrValue(std::string("interleaved"))}}});
    }
  } else if (op == "attention") {
    for (DType t : kF32Like) {
      out.push_back({"causal", {rand_t(rng, t, {2, 5, 8}, false), rand_t(rng, t, {2, 7, 8}, false), rand_t(rng, t, {2, 7, 3}, false)}, {}});
      out.push_back({"boolmask", {rand_t(rng, t, {4, 8}, false), rand_t(rng, t, {6, 8}, false), rand_t(rng, t, {6, 8}, false), rand_t(rng, DType::boolean, {4, 6})},
                     {{"causal", AttrValue(false)}}});
    }
    out.push_back({"floatmask", {rand_t(rng, DType::f32, {3, 4, 8}), rand_t(rng, DType::f32, {4, 8}), rand_t(rng, DType::f32, {4, 5}), rand_t(rng, DType::f32, {1, 4})},
                   {{"causal", AttrValue(false)}, {"scale", AttrValue(0.3)}}});
    out.push_back({"sq>sk", {rand_t(rng, DType::f32, {6, 4}), rand_t(rng, DType::f32, {3, 4}), rand_t(rng, DType::f32, {3, 2})}, {}});
  } else if (op == "ffn_swiglu") {
    for (DType t : kF32Like)
      out.push_back({"a", {rand_t(rng, t, {3, 16}, false), rand_t(rng, t, {24, 16}, false), rand_t(rng, t, {24, 16}, false), rand_t(rng, t, {16, 24}, false)}, {}});
  } else if (op == "ffn_gelu") {
    for (DType t : kF32Like) {
      out.push_back({"b", {rand_t(rng, t, {3, 16}, false), rand_t(rng, t, {20, 16}, false), rand_t(rng, t, {7, 20}, false), rand_t(rng, t, {20}), rand_t(rng, t, {7})}, {}});
      out.push_back({"tanh", {rand_t(rng, t, {2, 2, 16}), rand_t(rng, t, {20, 16}), rand_t(rng, t, {7, 20})}, {{"approximate", AttrValue(std::string("tanh"))}}});
    }
  } else if (op == "embedding") {
    out.push_back({"a", {rand_t(rng, DType::f32, {10, 6}), idx_t(rng, DType::i64, {2, 3}, 10)}, {}});
    out.push_back({"i8", {rand_t(rng, DType::i8, {4, 3}), idx_t(rng, DType::u32, {5}, 4)}, {}});
  } else if (op == "cross_entropy") {
    for (DType t : kF32Like)
      for (std::string red : {"mean", "sum", "none"}) {
        AttrMap a{{"reduction", AttrValue(red)}};
        out.push_back({red, {rand_t(rng, t, {6, 10}, false), idx_t(rng, DType::i64, {6}, 10)}, a});
        a.insert_or_assign("ignore_index", AttrValue(std::int64_t{2}));
        out.push_back({red + "-ign", {rand_t(rng, t, {5, 3}), idx_t(rng, DType::i32, {5}, 3)}, a});
      }
  } else if (op == "mse") {
    for (DType t : kF32Like)
      for (std::string red : {"mean", "sum", "none"})
        out.push_back({red, {rand_t(rng, t, {5000}), rand_t(rng, t, {5000})}, {{"reduction", AttrValue(red)}}});
  } else if (op == "csr_matmul" || op == "csr_matvec" || op == "csr_to_dense") {
    // A random 6 x 9 CSR matrix with sorted columns.
    for (DType t : {DType::f32, DType::f64, DType::f16}) {
      std::vector<std::int64_t> ptr{0}, cols;
      for (int r = 0; r < 6; ++r) {
        for (int k = 0; k < 9; ++k)
          if (rng() % 3 == 0) cols.push_back(k);
        ptr.push_back(static_cast<std::int64_t>(cols.size()));
      }
      HostTensor P = HostTensor::from_i64({ptr.size()}, ptr), C = HostTensor::from_i64({cols.size()}, cols);
      HostTensor V = rand_t(rng, t, {cols.size()});
      if (op == "csr_matmul") out.push_back({"mm", {P, C, V, rand_t(rng, t, {9, 5})}, {}});
      else if (op == "csr_matvec") out.push_back({"mv", {P, C, V, rand_t(rng, t, {9})}, {}});
      else out.push_back({"dense", {P, C, V}, {{"n_cols", AttrValue(std::int64_t{9})}}});
    }
  } else if (op == "csr_from_dense") {
    HostTensor x = rand_t(rng, DType::f32, {7, 9});
    for (std::uint64_t i = 0; i < x.numel(); i += 2) x.store_f32(i, 0.0f);
    out.push_back({"i64", {x}, {}});
    out.push_back({"i32", {x}, {{"index_dtype", AttrValue(DType::i32)}}});
  } else if (op == "csr_from_coo") {
    for (DType t : {DType::f32, DType::f64}) {
      HostTensor r = idx_t(rng, DType::i64, {40}, 5), k = idx_t(rng, DType::i64, {40}, 4);
      out.push_back({"dups", {r, k, rand_t(rng, t, {40})}, {{"n_rows", AttrValue(std::int64_t{6})}, {"n_cols", AttrValue(std::int64_t{4})}}});
    }
  } else if (op == "quantize") {
    for (DType q : {DType::q8_0, DType::q4_0}) {
      out.push_back({"ok", {rand_t(rng, DType::f32, {3, 64}, false)}, {{"to", AttrValue(q)}}});
      out.push_back({"special", {rand_t(rng, DType::f32, {2, 32})}, {{"to", AttrValue(q)}}});
    }
  } else if (op == "dequantize" || op == "linear_q") {
    // Quantize on the reference first; the quantized tensor is an input.
    for (DType q : {DType::q8_0, DType::q4_0}) {
      HostTensor w = rand_t(rng, DType::f32, {5, 64}, false);
      HostTensor wq(q, {5, 64});
      if (!quantize_for_test(w, q, wq)) continue;
      if (op == "dequantize") {
        for (DType to : kF32Like) out.push_back({std::string(dtype_name(to)), {wq}, {{"to", AttrValue(to)}}});
      } else {
        for (std::string mode : {"float", "int8"}) {
          out.push_back({mode, {rand_t(rng, DType::f32, {3, 64}, false), wq, rand_t(rng, DType::f32, {5})}, {{"compute", AttrValue(mode)}}});
          out.push_back({mode + "-special", {rand_t(rng, DType::f32, {4, 64}), wq}, {{"compute", AttrValue(mode)}}});
        }
      }
    }
  } else if (op == "random_bits" || op == "random_uniform" || op == "random_normal") {
    for (std::int64_t pos : {0, 12345})
      out.push_back({"p" + std::to_string(pos), {},
                     {{"shape", AttrValue(Shape{Dim::fixed(3), Dim::fixed(5000)})}, {"seed", AttrValue(std::int64_t{-7})},
                      {"offset", AttrValue(std::int64_t{3})}, {"position", AttrValue(pos)}}});
    if (op != "random_bits")
      out.push_back({"f16", {}, {{"shape", AttrValue(Shape{Dim::fixed(33)})}, {"seed", AttrValue(std::int64_t{1})}, {"dtype", AttrValue(DType::f16)}}});
  } else if (op == "expand_like") {
    out.push_back({"axes", {rand_t(rng, DType::f32, {3}), rand_t(rng, DType::f64, {3, 4})}, {{"axes", AttrValue(std::vector<std::int64_t>{1})}}});
    out.push_back({"bcast", {rand_t(rng, DType::i8, {1, 4}), rand_t(rng, DType::f32, {3, 4})}, {}});
  } else if (op == "zeros_like" || op == "ones_like") {
    for (DType t : {DType::f32, DType::bf16, DType::i16, DType::u64})
      out.push_back({std::string(dtype_name(t)), {rand_t(rng, t, {3, 7})}, {}});
  } else if (op == "sgd_update") {
    out.push_back({"a", {rand_t(rng, DType::f32, {40000}), rand_t(rng, DType::f32, {40000}), rand_t(rng, DType::f32, {40000})},
                   {{"lr", AttrValue(0.1)}, {"momentum", AttrValue(0.9)}, {"weight_decay", AttrValue(0.01)}}});
  } else if (op == "adam_update") {
    for (bool dec : {false, true})
      out.push_back({dec ? "adamw" : "adam",
                     {rand_t(rng, DType::f32, {33}), rand_t(rng, DType::f32, {33}), rand_t(rng, DType::f32, {33}),
                      rand_t(rng, DType::f32, {33}, false, 1.0), HostTensor::from_f32({2}, std::vector<float>{0.9f, 0.999f})},
                     {{"decoupled", AttrValue(dec)}, {"weight_decay", AttrValue(0.01)}}});
  }
  return out;
}

}  // namespace rung::cpu::testing
