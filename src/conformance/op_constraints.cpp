#include "conformance/op_constraints.h"

#include <algorithm>
#include <numeric>

#include "ops/slice_bounds.h"

namespace rung::conformance {

using ops::Extents;

// ---------------------------------------------------------------------------------------
// Dimensions and shapes.

std::uint64_t DrawContext::dim() {
  // Weighted: small sizes most often, then the edges (0, 1), odd and power-of-two sizes
  // around vector widths, and large primes that leave remainders for every tiling.
  static const std::uint64_t kDims[] = {1, 1, 1, 2, 2, 3, 3, 4, 5, 5, 7, 7, 8, 13, 16, 17, 31, 33, 64, 0, 0, 127, 257, 1021};
  return kDims[rng.below(std::size(kDims))];
}

Extents DrawContext::fit(Extents s) const {
  auto numel = [&] {
    std::uint64_t n = 1;
    for (auto d : s) n *= d;
    return n;
  };
  while (numel() > max_elems) {
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<std::uint64_t>(1, *it / 4 | 1);
  }
  return s;
}

Extents DrawContext::shape(std::size_t rank) {
  Extents s;
  for (std::size_t i = 0; i < rank; ++i) s.push_back(dim());
  return fit(std::move(s));
}

namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// `base` as another operand may see it under broadcasting: leading dims dropped, dims set to 1.
Extents broadcast_variant(DrawContext& c, const Extents& base) {
  Extents s = base;
  if (!s.empty() && c.rng.chance(1, 4)) s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(c.rng.below(s.size() + 1)));
  for (auto& d : s)
    if (c.rng.chance(1, 4)) d = 1;
  return s;
}

Extents batch(DrawContext& c, std::size_t max_rank = 2) {
  Extents b = c.shape(static_cast<std::size_t>(c.rng.below(max_rank + 1)));
  for (auto& d : b) d = std::min<std::uint64_t>(d, 5);  // batches multiply the work: keep them small
  return b;
}

Extents cat(Extents a, std::initializer_list<std::uint64_t> tail) {
  a.insert(a.end(), tail);
  return a;
}

// A dim that keeps `base_elems * d` within the budget.
std::uint64_t dim_within(DrawContext& c, std::uint64_t base_elems) {
  for (int i = 0; i < 8; ++i) {
    std::uint64_t d = c.dim();
    if (base_elems == 0 || d * base_elems <= c.max_elems) return d;
  }
  return 1;
}

std::uint64_t numel(const Extents& s) {
  std::uint64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

DType pick_dtype(DrawContext& c, std::initializer_list<DType> choices) {
  std::vector<DType> v(choices);
  return c.rng.pick(v);
}

// A CSR matrix [M, K] with a random pattern: indptr [M+1], indices [nnz] (index dtype I).
struct Csr {
  ops::HostTensor indptr, indices;
  std::uint64_t nnz = 0;
};
Csr random_csr(DrawContext& c, std::uint64_t M, std::uint64_t K, DType index_dtype) {
  std::uint64_t density = c.rng.below(5);  // 0%, 25%, 50%, 75%, 100% of the entries
  std::vector<std::uint64_t> rowptr{0}, cols;
  for (std::uint64_t r = 0; r < M; ++r) {
    for (std::uint64_t k = 0; k < K; ++k)
      if (c.rng.below(4) < density) cols.push_back(k);
    rowptr.push_back(cols.size());
  }
  Csr m{ops::HostTensor(index_dtype, {M + 1}), ops::HostTensor(index_dtype, {cols.size()}), cols.size()};
  for (std::uint64_t i = 0; i < rowptr.size(); ++i) m.indptr.store_int(i, rowptr[i]);
  for (std::uint64_t i = 0; i < cols.size(); ++i) m.indices.store_int(i, cols[i]);
  return m;
}

// ---------------------------------------------------------------------------------------
// Drawers for the ops that need structure.

std::optional<Draw> draw_matmul(DrawContext& c) {
  Extents b = batch(c);
  std::uint64_t M = c.dim(), K = c.dim(), N = c.dim();
  // A quarter of the cases: M and N multiples of 4 (the extents device kernels' vector and
  // pipelined paths require) with K mostly not, so their partial last k group is exercised.
  // (The pipelined CUDA SGEMM once dropped the last k of K = 1497; random dims rarely met
  // every condition of its path.)
  if (c.rng.chance(1, 4)) {
    static const std::vector<std::uint64_t> kTiled = {4, 8, 12, 32, 64, 68}, kDepth = {1, 3, 5, 37, 64, 67, 97, 118};
    M = c.rng.pick(kTiled);
    N = c.rng.pick(kTiled);
    K = c.rng.pick(kDepth);
    b.clear();
  }
  bool ta = c.rng.chance(1, 3), tb = c.rng.chance(1, 3);
  Draw d;
  d.shapes = {c.fit(cat(b, ta ? std::initializer_list<std::uint64_t>{K, M} : std::initializer_list<std::uint64_t>{M, K})),
              c.fit(cat(broadcast_variant(c, b), tb ? std::initializer_list<std::uint64_t>{N, K} : std::initializer_list<std::uint64_t>{K, N}))};
  d.attrs = {{"transpose_a", ta}, {"transpose_b", tb}};
  return d;
}

std::optional<Draw> draw_linear(DrawContext& c) {
  std::uint64_t K = c.dim(), N = c.dim();
  Draw d;
  d.shapes = {c.fit(cat(batch(c), {K})), c.fit({N, K})};
  if (c.rng.chance(1, 2)) d.shapes.push_back({d.shapes[1][0]});
  return d;
}

std::optional<Draw> draw_norm(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(3));
  std::int64_t r = i64(x.size());
  std::int64_t axis = c.rng.between(-r, r - 1);
  std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  Extents norm(x.begin() + static_cast<std::ptrdiff_t>(a), x.end());
  Draw d;
  d.shapes = {x};
  std::size_t params = c.op.operands.size() - 1;  // gamma (and beta)
  std::size_t present = c.rng.below(params + 1);
  for (std::size_t i = 0; i < present; ++i) d.shapes.push_back(norm);
  d.attrs = {{"axis", axis}};
  if (c.rng.chance(1, 3)) d.attrs.emplace("eps", c.rng.chance(1, 2) ? 0.0 : 0.5);
  return d;
}

std::optional<Draw> draw_rope(DrawContext& c) {
  Extents b = batch(c, 2);
  std::uint64_t S = c.dim(), D = 2 * std::max<std::uint64_t>(1, c.dim() / 2);
  Draw d;
  d.shapes = {c.fit(cat(b, {S, D}))};
  S = d.shapes[0][d.shapes[0].size() - 2];
  if (d.shapes[0].back() % 2) return std::nullopt;
  if (c.rng.chance(1, 2)) {
    d.shapes.push_back({S});
    d.values[1] = ValueRule::indices_below(c.rng.chance(1, 2) ? 64 : 100000);
  }
  d.attrs = {{"layout", c.rng.chance(1, 2) ? "half" : "interleaved"}};
  if (c.rng.chance(1, 3)) d.attrs.emplace("base", c.rng.chance(1, 2) ? 500.0 : 1e6);
  return d;
}

std::optional<Draw> draw_attention(DrawContext& c) {
  Extents b = batch(c, 2);
  std::uint64_t Sq = c.dim(), Sk = c.dim(), D = c.dim(), Dv = c.dim();
  Draw d;
  d.shapes = {c.fit(cat(b, {Sq, D})), c.fit(cat(broadcast_variant(c, b), {Sk, D})), c.fit(cat(broadcast_variant(c, b), {Sk, Dv}))};
  if (c.rng.chance(1, 2)) {
    d.shapes.push_back(c.fit(broadcast_variant(c, cat(b, {Sq, Sk}))));
    if (c.rng.chance(1, 2)) c.bindings["M"] = DType::boolean;
    else c.bindings["M"] = c.bound("T");
  }
  d.attrs = {{"causal", c.rng.chance(1, 2)}};
  if (c.rng.chance(1, 3)) d.attrs.emplace("scale", c.rng.chance(1, 2) ? 0.125 : 1.0);
  return d;
}

std::optional<Draw> draw_ffn_swiglu(DrawContext& c) {
  std::uint64_t D = c.dim(), H = c.dim(), O = c.dim();
  Draw d;
  Extents wg = c.fit({H, D});
  d.shapes = {c.fit(cat(batch(c, 1), {wg[1]})), wg, wg, c.fit({O, wg[0]})};
  if (d.shapes[3][1] != wg[0]) return std::nullopt;
  return d;
}

std::optional<Draw> draw_ffn_gelu(DrawContext& c) {
  std::uint64_t D = c.dim(), H = c.dim(), O = c.dim();
  Extents w1 = c.fit({H, D});
  Extents w2 = c.fit({O, w1[0]});
  if (w2[1] != w1[0]) return std::nullopt;
  Draw d;
  d.shapes = {c.fit(cat(batch(c, 1), {w1[1]})), w1, w2};
  if (c.rng.chance(1, 2)) {
    d.shapes.push_back({w1[0]});
    if (c.rng.chance(1, 2)) d.shapes.push_back({w2[0]});
  }
  d.attrs = {{"approximate", c.rng.chance(1, 2) ? "none" : "tanh"}};
  return d;
}

std::optional<Draw> draw_embedding(DrawContext& c) {
  Extents table = c.fit({std::max<std::uint64_t>(1, c.dim()), c.dim()});
  Draw d;
  d.shapes = {table, c.shape_any_rank(2)};
  d.values[1] = ValueRule::indices_below(table[0]);
  return d;
}

std::optional<Draw> draw_cross_entropy(DrawContext& c) {
  Extents rows = batch(c, 2);
  std::uint64_t C = std::max<std::uint64_t>(1, dim_within(c, numel(rows)));
  Draw d;
  d.shapes = {cat(rows, {C}), rows};
  d.values[1] = ValueRule::indices_below(C);
  d.attrs = {{"reduction", c.rng.pick(std::vector<std::string>{"mean", "sum", "none"})}};
  if (c.rng.chance(1, 3)) d.attrs.emplace("ignore_index", i64(c.rng.below(C)));
  return d;
}

std::optional<Draw> draw_gather(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(3));
  std::int64_t r = i64(x.size()), axis = c.rng.between(-r, r - 1);
  std::uint64_t n = x[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
  Extents idx = n == 0 ? Extents{0} : c.shape(c.rng.below(3));
  Draw d;
  d.shapes = {x, idx};
  d.values[1] = ValueRule::indices_below(n);
  d.attrs = {{"axis", axis}};
  return d;
}

// gather_elements: indices of x's rank, any extent along the axis, at most x's elsewhere.
std::optional<Draw> draw_gather_elements(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(3));
  std::int64_t r = i64(x.size()), axis = c.rng.between(-r, r - 1);
  std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  std::uint64_t n = x[a];
  Extents idx = x;
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (k != a && idx[k] > 0) idx[k] = 1 + c.rng.below(idx[k]);  // at most x's extent
  idx[a] = n == 0 ? 0 : c.dim();
  Draw d;
  d.shapes = {x, c.fit(idx)};
  d.values[1] = ValueRule::indices_below(n);
  d.attrs = {{"axis", axis}};
  return d;
}

std::optional<Draw> draw_scatter_add(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(3));
  std::int64_t r = i64(x.size()), axis = c.rng.between(-r, r - 1);
  std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  std::uint64_t n = x[a];
  std::uint64_t J = n == 0 ? 0 : c.dim();
  Extents upd = x;
  upd[a] = J;
  Draw d;
  d.shapes = {x, {J}, c.fit(upd)};
  if (d.shapes[2][a] != J) return std::nullopt;
  d.values[1] = ValueRule::indices_below(n);
  d.attrs = {{"axis", axis}};
  return d;
}

std::optional<Draw> draw_one_hot(DrawContext& c) {
  std::uint64_t depth = std::max<std::uint64_t>(1, c.dim());
  Extents idx = c.shape(c.rng.below(3));
  if (numel(idx) * depth > c.max_elems) return std::nullopt;
  Draw d;
  d.shapes = {idx};
  d.values[0] = ValueRule::indices_below(depth);
  d.attrs = {{"depth", i64(depth)},
             {"dtype", pick_dtype(c, {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i64, DType::i32, DType::u8, DType::boolean})}};
  return d;
}

Shape to_shape(const Extents& e) {
  Shape s;
  for (auto d : e) s.push_back(Dim::fixed(d));
  return s;
}

std::optional<Draw> draw_reshape(DrawContext& c) {
  Extents x = c.shape_any_rank(4);
  std::uint64_t n = numel(x);
  // Split n's prime factors over a random number of dims.
  Extents target(c.rng.below(4) + (n == 1 ? 0 : 1), 1);
  if (n == 0) {
    if (target.empty()) target.push_back(0);
    target[c.rng.below(target.size())] = 0;
  } else {
    std::uint64_t m = n;
    for (std::uint64_t p = 2; m > 1; ++p)
      while (m % p == 0) {
        target[c.rng.below(target.size())] *= p;
        m /= p;
      }
  }
  Draw d;
  d.shapes = {x};
  d.attrs = {{"shape", to_shape(target)}};
  return d;
}

std::optional<Draw> draw_broadcast_to(DrawContext& c) {
  Extents x = c.shape_any_rank(3);
  Extents target = x;
  for (auto& d : target)
    if (d == 1 && c.rng.chance(1, 2)) d = c.dim();
  std::size_t extra = c.rng.below(3);
  for (std::size_t i = 0; i < extra; ++i) target.insert(target.begin(), c.dim());
  if (numel(target) > c.max_elems) return std::nullopt;
  Draw d;
  d.shapes = {x};
  d.attrs = {{"shape", to_shape(target)}};
  return d;
}

std::optional<Draw> draw_transpose(DrawContext& c) {
  Extents x = c.shape_any_rank(4);
  std::vector<std::int64_t> perm(x.size());
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[c.rng.below(i)]);
  for (auto& p : perm)
    if (c.rng.chance(1, 4)) p -= i64(x.size());  // negative axes count from the end
  Draw d;
  d.shapes = {x};
  if (!c.rng.chance(1, 4)) d.attrs = {{"perm", perm}};
  return d;
}

std::optional<Draw> draw_slice(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(3));
  std::vector<std::int64_t> axes(x.size());
  std::iota(axes.begin(), axes.end(), 0);
  for (std::size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[c.rng.below(i)]);
  axes.resize(1 + c.rng.below(x.size()));
  std::vector<std::int64_t> starts, ends, steps;
  for (auto a : axes) {
    std::int64_t n = i64(x[static_cast<std::size_t>(a)]);
    std::int64_t s = c.rng.between(1, 3);
    if (c.rng.chance(1, 3)) s = -s;
    // A quarter of the bounds omitted (the int64 extreme on their side, as `x[::-1]` lowers).
    starts.push_back(c.rng.chance(1, 4) ? ops::omitted_start(s) : c.rng.between(-n - 2, n + 2));
    ends.push_back(c.rng.chance(1, 4) ? ops::omitted_end(s) : c.rng.between(-n - 2, n + 2));
    steps.push_back(s);
  }
  Draw d;
  d.shapes = {x};
  d.attrs = {{"starts", starts}, {"ends", ends}, {"axes", axes}};
  if (c.rng.chance(2, 3)) d.attrs.emplace("steps", steps);
  return d;
}

std::optional<Draw> draw_concat(DrawContext& c) {
  Extents base = c.shape(1 + c.rng.below(3));
  std::int64_t r = i64(base.size()), axis = c.rng.between(-r, r - 1);
  std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  Draw d;
  std::size_t k = 1 + c.rng.below(4);
  for (std::size_t i = 0; i < k; ++i) {
    Extents s = base;
    s[a] = c.dim();
    s = c.fit(s);
    for (std::size_t j = 0; j < s.size(); ++j)
      if (j != a && s[j] != base[j]) return std::nullopt;
    d.shapes.push_back(s);
  }
  d.attrs = {{"axis", axis}};
  return d;
}

std::optional<Draw> draw_pad(DrawContext& c) {
  Extents x = c.shape_any_rank(3);
  std::vector<std::int64_t> pads;
  for (std::size_t i = 0; i < 2 * x.size(); ++i) pads.push_back(c.rng.between(0, 3));
  std::string mode = c.rng.pick(std::vector<std::string>{"constant", "edge", "reflect"});
  Draw d;
  d.shapes = {x};
  d.attrs = {{"pads", pads}, {"mode", mode}};
  if (c.rng.chance(1, 2)) d.attrs.emplace("value", c.rng.chance(1, 2) ? -0.0 : 3.0);
  return d;
}

// resize: sizes up and down (and kept), each mode and coordinate transform; interpolating
// modes and extrapolation only for float dtypes (the shape rule's condition).
std::optional<Draw> draw_resize(DrawContext& c) {
  Extents x = c.shape(1 + c.rng.below(4));
  for (auto& d : x) d = std::min<std::uint64_t>(d, 17);
  const bool is_float = ops::DTypeSet(ops::kFloat).contains(c.bound("T"));
  std::vector<std::int64_t> sizes;
  std::vector<double> scales;
  std::uint64_t out_elems = 1;
  const bool with_scales = c.rng.chance(1, 3);
  for (auto d : x) {
    std::int64_t s = i64(d);
    if (d > 0) {
      switch (c.rng.below(5)) {
        case 0: s = -1; break;
        case 1: s = i64(d) * 2 + c.rng.between(0, 1); break;
        case 2: s = std::max<std::int64_t>(1, i64(d) / 2); break;
        case 3: s = c.rng.between(1, 9); break;
        default: break;
      }
    }
    out_elems *= s == -1 ? d : static_cast<std::uint64_t>(s);
    sizes.push_back(s);
    scales.push_back(s == -1 || d == 0 ? 1.0 : static_cast<double>(static_cast<float>(static_cast<double>(s) / static_cast<double>(d))));
  }
  if (out_elems > c.max_elems) return std::nullopt;
  std::string mode = is_float ? c.rng.pick(std::vector<std::string>{"nearest", "linear", "cubic"}) : "nearest";
  std::vector<std::string> cmodes = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"};
  if (is_float) cmodes.push_back("tf_crop_and_resize");
  std::string cmode = c.rng.pick(cmodes);
  Draw d;
  d.shapes = {x};
  d.attrs = {{"sizes", sizes}, {"mode", mode}, {"coordinate_mode", cmode},
             {"nearest_mode", c.rng.pick(std::vector<std::string>{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})}};
  if (with_scales) d.attrs.emplace("scales", scales);
  if (mode == "cubic") {
    d.attrs.emplace("cubic_coeff_a", c.rng.chance(1, 2) ? -0.5 : -0.75);
    d.attrs.emplace("exclude_outside", c.rng.chance(1, 2));
  }
  if (cmode == "tf_crop_and_resize") {
    std::vector<double> roi(2 * x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
      roi[k] = c.rng.chance(1, 2) ? 0.0 : 0.25 - 0.5 * c.rng.chance(1, 3);
      roi[x.size() + k] = c.rng.chance(1, 2) ? 1.0 : 0.75 + 0.5 * c.rng.chance(1, 3);
    }
    d.attrs.emplace("roi", roi);
    d.attrs.emplace("extrapolation_value", c.rng.chance(1, 2) ? -0.0 : 10.0);
  }
  return d;
}

std::optional<Draw> draw_iota(DrawContext& c) {
  Extents s = c.shape(1 + c.rng.below(3));
  Draw d;
  d.attrs = {{"shape", to_shape(s)},
             {"axis", c.rng.between(-i64(s.size()), i64(s.size()) - 1)},
             {"dtype", pick_dtype(c, {DType::i64, DType::i32, DType::i8, DType::u16, DType::f32, DType::f16, DType::bf16, DType::f64})}};
  return d;
}

std::optional<Draw> draw_arange(DrawContext& c) {
  static const double kSteps[] = {1.0, -1.0, 0.5, 3.0, -2.5, 0.25, 7.0};
  double step = kSteps[c.rng.below(std::size(kSteps))];
  double start = static_cast<double>(c.rng.between(-40, 40)) / 4.0;
  double count = static_cast<double>(c.dim());
  Draw d;
  d.attrs = {{"start", start}, {"stop", start + step * count + (c.rng.chance(1, 2) ? 0.0 : step / 3.0)}, {"step", step},
             {"dtype", pick_dtype(c, {DType::i64, DType::i32, DType::f32, DType::f64, DType::f16, DType::bf16})}};
  return d;
}

std::optional<Draw> draw_quantize(DrawContext& c) {
  Draw d;
  // Two draws, sequenced: as arguments of one call their order was the compiler's (g++
  // evaluates them right to left on x86-64, left to right on aarch64). K first keeps the
  // cases x86-64 has always drawn.
  std::uint64_t K = 32 * std::max<std::uint64_t>(1, c.dim() / 4);
  Extents b = batch(c, 2);
  d.shapes = {c.fit(cat(b, {K}))};
  if (d.shapes[0].back() % 32) return std::nullopt;
  d.values[0] = {ValueRule::Kind::finite};
  d.attrs = {{"to", c.rng.chance(1, 2) ? DType::q8_0 : DType::q4_0}};
  return d;
}

std::optional<Draw> draw_dequantize(DrawContext& c) {
  Draw d;
  // Two draws, sequenced: as arguments of one call their order was the compiler's (g++
  // evaluates them right to left on x86-64, left to right on aarch64). K first keeps the
  // cases x86-64 has always drawn.
  std::uint64_t K = 32 * std::max<std::uint64_t>(1, c.dim() / 4);
  Extents b = batch(c, 2);
  d.shapes = {c.fit(cat(b, {K}))};
  if (d.shapes[0].back() % 32) return std::nullopt;
  d.values[0] = {ValueRule::Kind::qblocks};
  d.attrs = {{"to", pick_dtype(c, {DType::f32, DType::f16, DType::bf16})}};
  return d;
}

std::optional<Draw> draw_linear_q(DrawContext& c) {
  std::uint64_t K = 32 * std::max<std::uint64_t>(1, c.dim() / 8), N = c.dim();
  Extents w = c.fit({N, K});
  if (w[1] != K) return std::nullopt;
  Draw d;
  d.shapes = {c.fit(cat(batch(c, 1), {K})), w};
  if (d.shapes[0].back() != K) return std::nullopt;
  if (c.rng.chance(1, 2)) d.shapes.push_back({w[0]});
  d.values[0] = {ValueRule::Kind::finite};
  d.values[1] = {ValueRule::Kind::qblocks};
  d.attrs = {{"compute", c.rng.chance(1, 2) ? "int8" : "float"}};
  return d;
}

// csr_matmul / csr_matvec: indptr, indices, values [nnz], dense operand [K, N] or [K].
std::optional<Draw> draw_csr_product(DrawContext& c, bool matrix) {
  std::uint64_t M = std::min<std::uint64_t>(c.dim(), 64), K = std::min<std::uint64_t>(c.dim(), 64), N = c.dim();
  Csr a = random_csr(c, M, K, c.bound("I"));
  Draw d;
  d.shapes = {a.indptr.shape(), a.indices.shape(), {a.nnz}, matrix ? c.fit({K, N}) : Extents{K}};
  if (d.shapes[3][0] != K) return std::nullopt;
  d.fixed.emplace(0, std::move(a.indptr));
  d.fixed.emplace(1, std::move(a.indices));
  return d;
}

std::optional<Draw> draw_csr_to_dense(DrawContext& c) {
  std::uint64_t M = std::min<std::uint64_t>(c.dim(), 64), K = std::min<std::uint64_t>(c.dim(), 64);
  Csr a = random_csr(c, M, K, c.bound("I"));
  Draw d;
  d.shapes = {a.indptr.shape(), a.indices.shape(), {a.nnz}};
  d.fixed.emplace(0, std::move(a.indptr));
  d.fixed.emplace(1, std::move(a.indices));
  d.attrs = {{"n_cols", i64(K)}};
  return d;
}

std::optional<Draw> draw_csr_from_coo(DrawContext& c) {
  std::uint64_t M = c.dim(), K = c.dim(), Z = (M == 0 || K == 0) ? 0 : c.dim();
  Draw d;
  d.shapes = {{Z}, {Z}, {Z}};
  d.values[0] = ValueRule::indices_below(M);
  d.values[1] = ValueRule::indices_below(K);
  d.attrs = {{"n_rows", i64(M)}, {"n_cols", i64(K)}};
  return d;
}

std::optional<Draw> draw_csr_from_dense(DrawContext& c) {
  Draw d;
  d.shapes = {c.shape(2)};
  d.attrs = {{"index_dtype", c.rng.chance(1, 2) ? DType::i32 : DType::i64}};
  return d;
}

std::optional<Draw> draw_optimizer(DrawContext& c) {
  Extents s = c.shape_any_rank(3);
  Draw d;
  bool adam = c.op.name == "adam_update";
  d.shapes.assign(adam ? 4 : 3, s);
  if (adam) {
    d.shapes.push_back({2});
    d.values[3] = {ValueRule::Kind::non_negative};  // v: a running mean of squares
    d.values[4] = {ValueRule::Kind::non_negative};
    d.attrs = {{"decoupled", c.rng.chance(1, 2)}, {"weight_decay", c.rng.chance(1, 2) ? 0.0 : 0.01}};
  } else {
    d.attrs = {{"momentum", c.rng.chance(1, 2) ? 0.0 : 0.9}, {"weight_decay", c.rng.chance(1, 2) ? 0.0 : 1e-4}};
  }
  return d;
}

// A sliding window over 1 or 2 spatial axes (conv, pools): input extents, kernel extents and
// the strides / pads / dilations attributes, mostly small, with strides and dilations above
// the kernel, asymmetric pads and, for convs, channels and groups drawn by the caller.
struct WindowDraw {
  Extents in, k;
  AttrMap attrs;
};

WindowDraw draw_window(DrawContext& c, bool pool) {
  WindowDraw w;
  std::size_t rank = 1 + c.rng.below(2);
  std::vector<std::int64_t> strides, pads, dilations;
  for (std::size_t i = 0; i < rank; ++i) {
    std::uint64_t k = 1 + c.rng.below(rank == 1 ? 6 : 4), d = c.rng.chance(1, 4) ? 1 + c.rng.below(3) : 1;
    std::uint64_t span = d * (k - 1) + 1;
    // Pools keep pads within the dilated window, so no window lies in the padding alone.
    std::uint64_t max_pad = pool ? span - 1 : span;
    w.k.push_back(k);
    w.in.push_back(std::max<std::uint64_t>(1, c.rng.chance(1, 5) ? span : span + c.rng.below(rank == 1 ? 40 : 14)));
    strides.push_back(c.rng.chance(1, 2) ? 1 : i64(1 + c.rng.below(3)));
    dilations.push_back(i64(d));
    pads.push_back(i64(c.rng.below(max_pad + 1)));
    pads.push_back(i64(c.rng.below(max_pad + 1)));
  }
  if (c.rng.chance(3, 4)) w.attrs.emplace("strides", strides);
  if (c.rng.chance(3, 4)) w.attrs.emplace("pads", pads);
  if (c.rng.chance(1, 2)) w.attrs.emplace("dilations", dilations);
  return w;
}

std::optional<Draw> draw_conv(DrawContext& c) {
  WindowDraw w = draw_window(c, false);
  std::uint64_t G = c.rng.chance(1, 3) ? 1 + c.rng.below(3) : 1;
  std::uint64_t Cg = 1 + c.rng.below(c.rng.chance(1, 4) ? 24 : 5), Mg = 1 + c.rng.below(c.rng.chance(1, 4) ? 20 : 6);
  std::uint64_t N = c.rng.below(4);  // 0 images included
  Draw d;
  d.shapes = {{N, G * Cg}, {G * Mg, Cg}};
  std::uint64_t numel = N * G * Cg;
  for (std::size_t i = 0; i < w.in.size(); ++i) {
    d.shapes[0].push_back(w.in[i]);
    d.shapes[1].push_back(w.k[i]);
    numel *= w.in[i];
  }
  if (numel > c.max_elems) return std::nullopt;  // fit() could break the channel split: draw again
  if (c.rng.chance(1, 2)) d.shapes.push_back({G * Mg});
  d.attrs = std::move(w.attrs);
  if (G > 1 || c.rng.chance(1, 4)) d.attrs.emplace("groups", i64(G));
  return d;
}

// conv_transpose: x [N, C, in...] and w [C, Mg, k...]; pads below the dilated kernel span
// and an output_padding below the stride keep most draws valid.
std::optional<Draw> draw_conv_transpose(DrawContext& c) {
  std::optional<Draw> d = draw_conv(c);
  if (!d) return d;
  std::uint64_t G = d->attrs.count("groups") ? static_cast<std::uint64_t>(d->attrs.at("groups").as<std::int64_t>()) : 1;
  Extents& x = d->shapes[0];
  Extents& w = d->shapes[1];
  std::uint64_t C = x[1], Mg = w[0] / G;
  w[0] = C;
  w[1] = Mg;
  for (std::size_t i = 2; i < x.size(); ++i) x[i] = std::max<std::uint64_t>(1, x[i] / 3);
  if (d->shapes.size() > 2) d->shapes[2] = {G * Mg};
  if (c.rng.chance(1, 3) && d->attrs.count("strides")) {
    std::vector<std::int64_t> op;
    for (auto s : d->attrs.at("strides").as<std::vector<std::int64_t>>()) op.push_back(c.rng.between(0, s - 1));
    d->attrs.emplace("output_padding", op);
  }
  return d;
}

std::optional<Draw> draw_pool(DrawContext& c) {
  WindowDraw w = draw_window(c, true);
  Draw d;
  d.shapes = {{c.rng.below(3), 1 + c.rng.below(4)}};
  d.shapes[0].insert(d.shapes[0].end(), w.in.begin(), w.in.end());
  d.attrs = std::move(w.attrs);
  std::vector<std::int64_t> ks;
  for (auto k : w.k) ks.push_back(i64(k));
  d.attrs.emplace("kernel_shape", ks);
  if (c.rng.chance(1, 3)) d.attrs.emplace("ceil_mode", true);
  if (c.op.name == "avg_pool" && c.rng.chance(1, 2)) d.attrs.emplace("count_include_pad", true);
  return d;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The table.

const std::vector<OpConstraint>& constraint_table() {
  static const std::vector<OpConstraint> table = {
      {"matmul", draw_matmul},
      {"linear", draw_linear},
      {"layer_norm", draw_norm},
      {"rms_norm", draw_norm},
      {"rope", draw_rope},
      {"attention", draw_attention},
      {"ffn_swiglu", draw_ffn_swiglu},
      {"ffn_gelu", draw_ffn_gelu},
      {"embedding", draw_embedding},
      {"cross_entropy", draw_cross_entropy},
      {"gather", draw_gather},
      {"gather_elements", draw_gather_elements},
      {"scatter_add", draw_scatter_add},
      {"one_hot", draw_one_hot},
      {"reshape", draw_reshape},
      {"broadcast_to", draw_broadcast_to},
      {"transpose", draw_transpose},
      {"slice", draw_slice},
      {"concat", draw_concat},
      {"pad", draw_pad},
      {"resize", draw_resize},
      {"iota", draw_iota},
      {"arange", draw_arange},
      {"quantize", draw_quantize},
      {"dequantize", draw_dequantize},
      {"linear_q", draw_linear_q},
      {"csr_matmul", [](DrawContext& c) { return draw_csr_product(c, true); }},
      {"csr_matvec", [](DrawContext& c) { return draw_csr_product(c, false); }},
      {"csr_to_dense", draw_csr_to_dense},
      {"csr_from_coo", draw_csr_from_coo},
      {"csr_from_dense", draw_csr_from_dense},
      {"sgd_update", draw_optimizer},
      {"adam_update", draw_optimizer},
      {"conv", draw_conv},
      {"conv_transpose", draw_conv_transpose},
      {"max_pool", draw_pool},
      {"avg_pool", draw_pool},
  };
  return table;
}

const OpConstraint* find_constraint(std::string_view op) {
  for (const auto& e : constraint_table())
    if (e.op == op) return &e;
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// The generic draw.

AttrValue draw_attr(DrawContext& c, const ops::AttrSpec& spec, std::size_t rank) {
  std::int64_t r = i64(rank);
  switch (spec.kind) {
    case AttrKind::boolean: return c.rng.chance(1, 2);
    case AttrKind::integer:
      if (spec.name == "seed") return static_cast<std::int64_t>(c.rng.next());
      if (spec.name == "offset" || spec.name == "position") return i64(c.rng.below(std::uint64_t{1} << 40));
      if (spec.name == "axis") return rank == 0 ? std::int64_t{0} : c.rng.between(-r, r - 1);
      if (spec.name == "correction") return c.rng.between(0, 2);
      return c.rng.between(-2, 4);
    case AttrKind::real: {
      static const double kReals[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 3.5, -7.25, 0.9};
      return kReals[c.rng.below(std::size(kReals))];
    }
    case AttrKind::string:
      if (!spec.choices.empty()) return c.rng.pick(spec.choices);
      return std::string("x");
    case AttrKind::integers: {  // axes: a random subset, some counted from the end
      std::vector<std::int64_t> axes;
      for (std::int64_t a = 0; a < r; ++a)
        if (c.rng.chance(1, 2)) axes.push_back(c.rng.chance(1, 4) ? a - r : a);
      return axes;
    }
    case AttrKind::reals: return std::vector<double>{0.5, -1.0};
    case AttrKind::dtype: {
      static const DType kTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i64, DType::i32, DType::i16,
                                     DType::i8,  DType::u64, DType::u32,  DType::u16, DType::u8,  DType::boolean};
      return kTypes[c.rng.below(std::size(kTypes))];
    }
    case AttrKind::shape: return to_shape(c.shape_any_rank(3));
    default: return std::int64_t{0};
  }
}

std::optional<Draw> generic_draw(DrawContext& c) {
  Extents base = c.shape_any_rank(4);
  Draw d;
  bool all_equal = c.rng.chance(1, 2);
  for (std::size_t i = 0; i < c.op.operands.size(); ++i) {
    const auto& spec = c.op.operands[i];
    if (spec.arity == ops::Arity::optional && c.rng.chance(1, 2)) break;  // trailing optionals
    std::size_t repeat = spec.arity == ops::Arity::variadic ? 1 + c.rng.below(3) : 1;
    for (std::size_t k = 0; k < repeat; ++k) d.shapes.push_back(all_equal ? base : broadcast_variant(c, base));
  }
  for (const auto& spec : c.op.attrs) {
    if (spec.presence != ops::AttrPresence::required && c.rng.chance(1, 2)) continue;
    d.attrs.emplace(spec.name, draw_attr(c, spec, base.size()));
  }
  return d;
}

}  // namespace rung::conformance
