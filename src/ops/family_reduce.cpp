// Reductions over any axes (ids 300-349). Floating-point sums and products follow the
// canonical tree (numerics/reduce_tree.h) over the reduced elements in row-major order
// (ops/reduce_layout.h); integer sums and products wrap and are order-free; f16/bf16
// accumulate in f32 and round once at the output.
#include <limits>

#include "ops/elementwise_driver.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/reduce_layout.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

using TC = TolClass;

std::vector<std::size_t> reduced_axes(const KernelContext& c) {
  std::string err;
  const auto& in = c.inputs[0].shape();
  if (c.attrs.has("axis")) return {*normalize_axis(c.attrs.integer("axis"), in.size(), err)};
  return *normalize_axes(c.attrs.integers("axes"), in.size(), true, err);
}

// Applies `per_output(load, n)` to every output; load(i) gives the i-th reduced element.
template <typename T, typename PerOutput> void reduce_each(KernelContext& c, PerOutput&& per_output) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  ReduceLayout L = reduce_layout(x.shape(), reduced_axes(c));
  for (std::uint64_t o = 0; o < L.out_base.size(); ++o) {
    std::uint64_t base = L.out_base[o];
    auto load = [&](std::uint64_t i) { return load_as<T>(x, base + L.red_offset[i]); };
    per_output(y, o, load, L.count());
  }
}

// Dispatches a reduction formula over the input's compute type.
template <typename Formula> void reduce_kernel(KernelContext& c) {
  visit_compute_type(c.inputs[0].dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (Formula::template supports<T>) {
      reduce_each<T>(c, [&](HostTensor& y, std::uint64_t o, const auto& load, std::uint64_t n) {
        Formula::template apply<T>(y, o, load, n, c.attrs);
      });
    } else {
      RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
    }
  });
}

template <typename T> constexpr bool kIsReal = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T> constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

struct SumF {
  template <typename T> static constexpr bool supports = kIsReal<T> || kIsInt<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    store_as<T>(y, o, num::canonical_reduce<T>(n, load, num::Add{}, T(0)));
  }
};

struct ProdF {
  template <typename T> static constexpr bool supports = kIsReal<T> || kIsInt<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    store_as<T>(y, o, num::canonical_reduce<T>(n, load, num::Mul{}, T(1)));
  }
};

// mean = canonical sum / n, with n rounded to the compute type (RNE); n = 0 gives NaN.
struct MeanF {
  template <typename T> static constexpr bool supports = kIsReal<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    store_as<T>(y, o, num::canonical_reduce<T>(n, load, num::Add{}, T(0)) / static_cast<T>(n));
  }
};

template <typename T> T lowest() {
  if constexpr (kIsReal<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <typename T> T highest() {
  if constexpr (kIsReal<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}

// max/min: NaN if any element is NaN; max prefers +0 over -0, min -0 over +0. These make
// the result independent of order; the tree is used anyway so all reductions share one loop.
struct MaxF {
  template <typename T> static constexpr bool supports = kIsReal<T> || kIsInt<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    store_as<T>(y, o, num::canonical_reduce<T>(n, load, num::Maximum{}, lowest<T>()));
  }
};
struct MinF {
  template <typename T> static constexpr bool supports = kIsReal<T> || kIsInt<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    store_as<T>(y, o, num::canonical_reduce<T>(n, load, num::Minimum{}, highest<T>()));
  }
};

// argmax/argmin: the first index holding the extreme value; a NaN counts as more extreme
// than any number (the first NaN wins), as in numpy.
template <bool kMax> struct ArgF {
  template <typename T> static constexpr bool supports = kIsReal<T> || kIsInt<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    std::uint64_t best = 0;
    T bv = load(0);
    for (std::uint64_t i = 1; i < n; ++i) {
      T v = load(i);
      if constexpr (kIsReal<T>) {
        if (num::is_nan(bv)) break;
        if (num::is_nan(v)) { best = i; break; }
      }
      if (kMax ? v > bv : v < bv) { best = i; bv = v; }
    }
    y.set_raw<std::int64_t>(o, static_cast<std::int64_t>(best));
  }
};

// variance = canonical_sum((x_i - mean)^2) / (n - correction), mean as in MeanF, each
// square a single rounded multiply; a divisor <= 0 divides by +0 (inf or NaN).
struct VarianceF {
  template <typename T> static constexpr bool supports = kIsReal<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs& attrs) {
    T mean = num::canonical_reduce<T>(n, load, num::Add{}, T(0)) / static_cast<T>(n);
    auto sq = [&](std::uint64_t i) { T d = load(i) - mean; return d * d; };
    T ss = num::canonical_reduce<T>(n, sq, num::Add{}, T(0));
    std::int64_t div = static_cast<std::int64_t>(n) - attrs.integer("correction");
    store_as<T>(y, o, ss / static_cast<T>(div > 0 ? div : 0));
  }
};

// logsumexp = m + log(canonical_sum(exp(x_i - m))), m the max; NaN if any is NaN; m itself
// when m is infinite (all -inf gives -inf); an empty reduction gives -inf.
struct LogSumExpF {
  template <typename T> static constexpr bool supports = kIsReal<T>;
  template <typename T, typename Load>
  static void apply(HostTensor& y, std::uint64_t o, const Load& load, std::uint64_t n, const Attrs&) {
    T m = num::canonical_reduce<T>(n, load, num::Maximum{}, -std::numeric_limits<T>::infinity());
    if (num::is_nan(m) || num::is_inf(m)) { store_as<T>(y, o, m); return; }
    auto e = [&](std::uint64_t i) { return num::Exp{}(load(i) - m); };
    T s = num::canonical_reduce<T>(n, e, num::Add{}, T(0));
    store_as<T>(y, o, m + num::Log{}(s));
  }
};

// cumsum along one axis in a defined sequential order: y_0 = x_0, y_j = y_(j-1) + x_j
// (reverse: from the last element); exclusive: y_0 = +0 and y_j the inclusive y_(j-1).
// f16/bf16 accumulate in f32, each output rounded once; integers wrap.
void cumsum_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), x.rank(), err);
  bool exclusive = c.attrs.boolean("exclusive"), reverse = c.attrs.boolean("reverse");
  std::uint64_t n = x.shape()[ax], inner = 1, outer = 1;
  for (std::size_t d = ax + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  for (std::size_t d = 0; d < ax; ++d) outer *= x.shape()[d];
  visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      for (std::uint64_t o = 0; o < outer; ++o)
        for (std::uint64_t q = 0; q < inner; ++q) {
          T acc{};
          for (std::uint64_t s = 0; s < n; ++s) {
            std::uint64_t j = reverse ? n - 1 - s : s, at = (o * n + j) * inner + q;
            T v = load_as<T>(x, at);
            if (exclusive) {
              store_as<T>(y, at, acc);
              acc = s == 0 ? v : num::Add{}(acc, v);
            } else {
              acc = s == 0 ? v : num::Add{}(acc, v);
              store_as<T>(y, at, acc);
            }
          }
        }
    } else {
      RUNG_UNREACHABLE("cumsum admits no bool");
    }
  });
}

// Reductions without an identity refuse empty axes when the shape says so statically.
ShapeRule nonempty(ShapeRule inner) {
  return [inner](const ShapeArgs& a) {
    ShapeResult r = inner(a);
    if (!r.error.empty()) return r;
    std::string err;
    const Shape& in = a.inputs[0].shape;
    std::vector<std::size_t> axes = a.attrs.has("axis") ? std::vector<std::size_t>{*normalize_axis(a.attrs.integer("axis"), in.size(), err)}
                                                       : *normalize_axes(a.attrs.integers("axes"), in.size(), true, err);
    for (auto ax : axes)
      if (in[ax].is_static() && in[ax].extent() == 0)
        return ShapeResult::fail("axis " + std::to_string(ax) + " of " + shape_to_string(in) +
                                 " is empty: this reduction has no identity value");
    return r;
  };
}

ShapeResult rule_cumsum(const ShapeArgs& a) {
  std::string err;
  const Shape& in = a.inputs[0].shape;
  if (in.empty()) return ShapeResult::fail("cumsum needs an operand of rank >= 1, not a scalar");
  if (!normalize_axis(a.attrs.integer("axis"), in.size(), err)) return ShapeResult::fail(err);
  return ShapeResult::ok({in});
}

OpDef over_axes(std::string name, std::uint16_t id, DTypeSet types, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", types).input("x", "T").output("y", "T")
      .attr("axes", std::vector<std::int64_t>{}, "axes to reduce (negative counts from the end); empty = all")
      .attr("keepdims", false, "keep reduced axes as size 1")
      .shape(rule_reduce_axes).kernel(std::move(k))
      .tolerance_classes(TC::exact, TC::tight, TC::default_);
  return d;
}

OpDef over_axis(std::string name, std::uint16_t id, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", kNumeric).input("x", "T").output("y", "i64")
      .attr("axis", std::int64_t{-1}, "the axis to search").attr("keepdims", false, "keep the axis as size 1")
      .shape(nonempty(rule_reduce_axis)).kernel(std::move(k));
  return d;
}

}  // namespace

void register_family_reduce(OpRegistry& r) {
  r.add(over_axes("sum", 300, kNumeric, "sum over axes (canonical tree; integers wrap)", reduce_kernel<SumF>));
  r.add(over_axes("mean", 301, kFloat, "canonical sum / n", reduce_kernel<MeanF>));
  r.add(over_axes("prod", 302, kNumeric, "product over axes (canonical tree; integers wrap)", reduce_kernel<ProdF>));
  r.add(over_axes("max", 303, kNumeric, "max over axes; NaN if any is NaN", reduce_kernel<MaxF>)
            .shape(nonempty(rule_reduce_axes)).tolerance_classes(TC::exact, TC::exact, TC::exact));
  r.add(over_axes("min", 304, kNumeric, "min over axes; NaN if any is NaN", reduce_kernel<MinF>)
            .shape(nonempty(rule_reduce_axes)).tolerance_classes(TC::exact, TC::exact, TC::exact));
  r.add(over_axis("argmax", 305, "index of the first maximum (a NaN counts as the maximum)", reduce_kernel<ArgF<true>>));
  r.add(over_axis("argmin", 306, "index of the first minimum (a NaN counts as the minimum)", reduce_kernel<ArgF<false>>));
  r.add(over_axes("variance", 307, kFloat, "sum((x - mean)^2) / (n - correction), two passes", reduce_kernel<VarianceF>)
            .attr("correction", std::int64_t{0}, "subtracted from n in the divisor (1 for the unbiased estimate)"));
  r.add(OpDef("cumsum", 309)
            .doc("running sum along axis in sequential order (x_0, x_0 + x_1, ...); exclusive starts from +0, reverse from the end")
            .type_var("T", kNumeric).input("x", "T").output("y", "T")
            .attr("axis", std::int64_t{0}, "the axis summed along (negative counts from the end)")
            .attr("exclusive", false, "y_j sums the elements before j (y_0 = +0)")
            .attr("reverse", false, "sum from the last element towards the first")
            .shape(rule_cumsum).kernel(cumsum_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::tight));
  r.add(over_axes("logsumexp", 308, kFloat, "max + log(sum(exp(x - max)))", reduce_kernel<LogSumExpF>));
}

}  // namespace rung::ops
