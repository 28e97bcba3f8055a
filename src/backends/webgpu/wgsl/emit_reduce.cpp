// Reductions and softmax. One invocation per output value walks its sequence (the reduced
// elements in row-major order of the reduced axes) through the canonical tree (wgsl/tree.h),
// so the order is the reference's; max/min are order-free by their NaN/±0 rules; integer
// sums wrap. Softmax is two dispatches: row statistics (max, canonical sum of exp) into a
// scratch buffer, then every element.
#include <algorithm>

#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/tree.h"

namespace rung::webgpu {
namespace {

using ops::Extents;

std::size_t norm_axis(std::int64_t ax, std::size_t rank) {
  return static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(rank) : ax);
}

// WGSL for the input offset of output `o` (kept axes) and of sequence position `k` (reduced
// axes), both row-major.
struct Layout {
  std::string base_fn;  // fn base(o: u32) -> u32
  std::uint64_t n = 0;  // sequence length
  std::uint64_t outputs = 0;
  std::string off_fn;   // fn off(k: u32) -> u32
};

std::string decompose(const std::vector<std::size_t>& dims, const Extents& xs, const std::string& v) {
  // A zero extent among `dims` leaves no index to decompose (the function is never called, e.g.
  // the sequence of a sum over an empty axis); `% 0u` would not even compile.
  for (std::size_t d : dims)
    if (xs[d] == 0) return "0u";
  auto xst = row_major_strides(xs);
  std::string e;
  std::uint64_t inner = 1;
  for (std::size_t j = dims.size(); j-- > 0;) {
    std::size_t d = dims[j];
    if (xs[d] != 1) {
      std::string c = inner == 1 ? v : "(" + v + " / " + u32_lit(inner) + ")";
      if (j > 0) c = "(" + c + " % " + u32_lit(xs[d]) + ")";
      e += (e.empty() ? "" : " + ") + c + " * " + u32_lit(xst[d]);
    }
    inner *= xs[d];
  }
  return e.empty() ? "0u" : e;
}

Layout layout(const Extents& xs, std::vector<std::size_t> red) {
  std::sort(red.begin(), red.end());
  std::vector<std::size_t> kept;
  Layout L;
  L.n = 1;
  L.outputs = 1;
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (std::find(red.begin(), red.end(), d) != red.end()) L.n *= xs[d];
    else {
      kept.push_back(d);
      L.outputs *= xs[d];
    }
  }
  L.base_fn = "fn base(o: u32) -> u32 { return " + decompose(kept, xs, "o") + "; }  // first element of output o\n";
  L.off_fn = "fn off(k: u32) -> u32 { return " + decompose(red, xs, "k") + "; }  // k-th reduced element\n";
  return L;
}

std::vector<std::size_t> reduced_axes(const KernelArgs& a) {
  std::size_t rank = a.in[0].shape.size();
  std::vector<std::size_t> r;
  if (a.attrs.has("axis")) return {norm_axis(a.attrs.integer("axis"), rank)};
  for (auto ax : a.attrs.integers("axes")) r.push_back(norm_axis(ax, rank));
  if (r.empty())
    for (std::size_t d = 0; d < rank; ++d) r.push_back(d);
  return r;
}

std::optional<Program> emit_reduce(const KernelArgs& a, std::string& error) {
  const std::string& op = a.op.name;
  Scalar s = scalar_of(a.in[0].dtype);
  std::string t(wgsl_type(s));
  Layout L = layout(a.in[0].shape, reduced_axes(a));
  if (L.n > kTreeMaxValues) {
    error = "a reduction over more than 2^24 values (two tree levels) is not generated";
    return std::nullopt;
  }
  MapSpec m;
  m.value_type = scalar_of(a.out[0].dtype);
  m.extra_code = {L.base_fn, L.off_fn};
  m.comments = {"sequence length " + std::to_string(L.n) + " per output; " + std::to_string(L.outputs) + " outputs"};
  std::string n = u32_lit(L.n);
  std::string loop = "  for (var k = 0u; k < " + n + "; k = k + 1u) {\n";
  std::string f;
  if (s != Scalar::f32 && (op == "sum" || op == "prod")) {
    // Integers wrap; order-free.
    f = "fn value(o: u32) -> " + t + " {\n  let b = base(o);\n  var acc: " + t + " = " + (op == "sum" ? "0" : "1") +
        std::string(s == Scalar::u32 ? "u" : "") + ";\n" + loop + "    acc = acc " + (op == "sum" ? "+" : "*") +
        " ld_x(b + off(k));\n  }\n  return acc;\n}\n";
    m.title = op + " (integers wrap; order-free)";
  } else if (op == "max" || op == "min") {
    bool mx = op == "max";
    if (s == Scalar::f32) {
      m.helpers = {mx ? "fmax" : "fmin"};
      f = "fn value(o: u32) -> f32 {\n  let b = base(o);\n  var acc = " + std::string(mx ? "bitcast<f32>(0xff800000u)" : "bitcast<f32>(0x7f800000u)") +
          ";\n" + loop + "    acc = " + (mx ? "fmax" : "fmin") + "(acc, ld_x(b + off(k)));\n  }\n  return acc;\n}\n";
    } else {
      std::string init = s == Scalar::i32 ? (mx ? "i32(-2147483647 - 1)" : "2147483647") : (mx ? "0u" : "0xffffffffu");
      f = "fn value(o: u32) -> " + t + " {\n  let b = base(o);\n  var acc: " + t + " = " + init + ";\n" + loop + "    acc = " +
          (mx ? "max" : "min") + "(acc, ld_x(b + off(k)));\n  }\n  return acc;\n}\n";
    }
    m.title = op + " (NaN and ±0 rules make the order irrelevant)";
  } else if (op == "argmax" || op == "argmin") {
    bool mx = op == "argmax";
    std::string cmp = mx ? "v > bv" : "v < bv";
    f = "fn value(o: u32) -> i32 {\n  let b = base(o);\n  var best = 0u;\n  var bv = ld_x(b);\n"
        "  for (var k = 1u; k < " + n + "; k = k + 1u) {\n    let v = ld_x(b + off(k));\n";
    if (s == Scalar::f32) {
      m.helpers = {"is_nan"};
      f += "    if (is_nan(bv)) { break; }\n    if (is_nan(v)) { best = k; break; }\n";
    }
    f += "    if (" + cmp + ") { best = k; bv = v; }\n  }\n  return i32(best);\n}\n";
    m.title = op + ": the first index of the extreme value (the first NaN wins)";
  } else if (op == "sum" || op == "prod" || op == "mean") {
    bool prod = op == "prod";
    m.extra_code.push_back(tree_code("acc", "f32", prod ? "a * b" : "a + b", prod ? "1.0f" : "0.0f"));
    f = "fn value(o: u32) -> f32 {\n  let b = base(o);\n  acc_reset();\n" + loop + "    acc_push(ld_x(b + off(k)));\n  }\n";
    if (op == "mean") m.helpers = {"div_cr"};
    f += op == "mean" ? "  return div_cr(acc_result(), " + f32_lit(static_cast<double>(L.n)) + ");\n}\n" : "  return acc_result();\n}\n";
    m.title = op + " over the canonical tree";
  } else if (op == "variance") {
    std::int64_t div = static_cast<std::int64_t>(L.n) - a.attrs.integer("correction");
    m.extra_code.push_back(tree_code("acc", "f32", "a + b", "0.0f"));
    m.helpers = {"div_cr", "rmul"};
    f = "fn value(o: u32) -> f32 {\n  let b = base(o);\n  acc_reset();\n" + loop + "    acc_push(ld_x(b + off(k)));\n  }\n" +
        "  let mean = div_cr(acc_result(), " + f32_lit(static_cast<double>(L.n)) + ");\n  acc_reset();\n" + loop +
        "    let d = ld_x(b + off(k)) - mean;\n    acc_push(rmul(d, d));\n  }\n  return div_cr(acc_result(), " +
        f32_lit(static_cast<double>(div > 0 ? div : 0)) + ");\n}\n";
    m.title = "variance: two passes over the canonical tree";
  } else if (op == "logsumexp") {
    m.helpers = {"fmax", "exp_r", "log_r", "is_nan"};
    m.extra_code.push_back(tree_code("acc", "f32", "a + b", "0.0f"));
    f = "fn value(o: u32) -> f32 {\n  let b = base(o);\n  var m = bitcast<f32>(0xff800000u);\n" + loop +
        "    m = fmax(m, ld_x(b + off(k)));\n  }\n"
        "  if (is_nan(m) || (bitcast<u32>(m) & 0x7fffffffu) == 0x7f800000u) { return m; }\n  acc_reset();\n" + loop +
        "    acc_push(exp_r(ld_x(b + off(k)) - m));\n  }\n  return m + log_r(acc_result());\n}\n";
    m.title = "logsumexp = m + log(canonical sum of exp(x - m))";
  } else {
    error = "no reduction emitter for `" + op + "`";
    return std::nullopt;
  }
  m.value_fn = f;
  return map_program(a, m, error);
}

// softmax / log_softmax over one axis: dispatch 1 writes (max, sum) per row to scratch,
// dispatch 2 maps every element.
std::optional<Program> emit_softmax(const KernelArgs& a, std::string& error) {
  bool log = a.op.name == "log_softmax";
  const Extents& xs = a.in[0].shape;
  std::size_t ax = norm_axis(a.attrs.integer("axis"), xs.size());
  Layout L = layout(xs, {ax});
  if (L.n > kTreeMaxValues) {
    error = "softmax rows longer than 2^24";
    return std::nullopt;
  }
  Program p;
  p.scratch_words.push_back(2 * std::max<std::uint64_t>(L.outputs, 1));
  int stats = static_cast<int>(a.in.size() + a.out.size());
  // Element i belongs to row r = (i / (n * inner)) * inner + i % inner, inner = extent after the axis.
  std::uint64_t inner = 1;
  for (std::size_t d = ax + 1; d < xs.size(); ++d) inner *= xs[d];
  // Rows are independent: beyond one binding, the statistics run over windows of whole outer
  // blocks (n * inner contiguous elements holding `inner` rows).
  std::uint64_t blocks = L.n * inner == 0 ? 0 : a.in[0].numel() / (L.n * inner);
  auto windows = row_windows(a.caps, blocks, L.n * inner, inner, error);
  if (!windows) return std::nullopt;
  if (2 * L.outputs * 4 > a.caps.max_binding) {
    error = "softmax row statistics beyond one binding";
    return std::nullopt;
  }
  for (const RowWindow& w : *windows) {
    Module m(a, "row statistics: m = max, s = canonical sum of exp(x - m)" +
                    (w.split ? " (rows " + std::to_string(w.row0) + ".." + std::to_string(w.row0 + w.rows) + ")" : std::string()));
    if (w.split)
      m.comment("split: x exceeds maxStorageBufferBindingSize, so the rows are done in windows; x is bound from element X_BASE");
    m.bind(0, "x", Scalar::f32, false, a.in[0].to_string(), w.split ? Binding{0, w.base * 4, w.words * 4} : Binding{});
    m.bind(stats, "stats", Scalar::f32, true, "per row: max, then sum");
    m.use("fmax");
    m.use("exp_r");
    m.code(L.base_fn);
    m.code(L.off_fn);
    m.code(tree_code("acc", "f32", "a + b", "0.0f"));
    std::string n = u32_lit(L.n);
    std::string body = "  let o = " + (w.split ? u32_lit(w.row0) + " + " : std::string()) + "gid.x + gid.y * nwg.x * 64u;\n  if (o >= " +
                       u32_lit(w.row0 + w.rows) + ") { return; }\n"
                       "  let b = base(o)" + (w.split ? " - " + u32_lit(w.base) : std::string()) + ";\n  var m = bitcast<f32>(0xff800000u);\n"
                       "  for (var k = 0u; k < " + n + "; k = k + 1u) { m = fmax(m, x[b + off(k)]); }\n"
                       "  acc_reset();\n"
                       "  for (var k = 0u; k < " + n + "; k = k + 1u) { acc_push(exp_r(x[b + off(k)] - m)); }\n"
                       "  stats[2u * o] = m;\n  stats[2u * o + 1u] = acc_result();\n";
    p.steps.push_back(m.finish(body, 64, grid_for(w.rows, 64, a.caps)));
  }
  MapSpec m;
  m.title = log ? "log_softmax_i = (x_i - m) - log(s)" : "softmax_i = exp(x_i - m) / s";
  m.helpers = {"exp_r", "log_r", "div_cr"};
  m.aligned = {0};
  m.extra_code = {"@group(0) @binding(2) var<storage, read> stats: array<f32>;  // per row: max, sum (dispatch 1)\n"};
  std::string row = "(i / " + u32_lit(L.n * inner) + ") * " + u32_lit(inner) + " + i % " + u32_lit(inner);
  m.value_fn = "fn value(i: u32) -> f32 {\n  let r = " + row + ";\n  let m = stats[2u * r];\n  let s = stats[2u * r + 1u];\n" +
               (log ? "  return (ld_x(i) - m) - log_r(s);\n}\n" : "  return div_cr(exp_r(ld_x(i) - m), s);\n}\n");
  auto steps = map_steps(a, m, error);
  if (!steps) return std::nullopt;
  for (auto& st : *steps) {
    st.bindings.push_back(Binding{stats});
    p.steps.push_back(std::move(st));
  }
  return p;
}

// cumsum: each output element repeats the reference's sequential sum from the start of its
// line (the same additions in the same order, so the same bits without a scan's
// reassociation; quadratic in the axis extent).
std::optional<Program> emit_cumsum(const KernelArgs& a, std::string& error) {
  const TensorDesc& x = a.in[0];
  std::size_t ax = static_cast<std::size_t>(a.attrs.integer("axis") < 0 ? a.attrs.integer("axis") + static_cast<std::int64_t>(x.shape.size())
                                                                      : a.attrs.integer("axis"));
  std::uint64_t n = x.shape[ax], inner = 1;
  for (std::size_t d = ax + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  bool exclusive = a.attrs.boolean("exclusive"), reverse = a.attrs.boolean("reverse");
  Scalar s = scalar_of(x.dtype);
  std::string t(wgsl_type(s)), zero = s == Scalar::f32 ? "0.0f" : s == Scalar::i32 ? "0" : "0u";
  // An empty output still gets a module: keep its divisors non-zero (no element runs).
  std::string N = u32_lit(std::max<std::uint64_t>(n, 1)), I = u32_lit(std::max<std::uint64_t>(inner, 1));
  auto pos = [&](const std::string& k) { return reverse ? "(" + N + " - 1u - " + k + ")" : k; };
  MapSpec m;
  m.title = std::string("cumsum along axis ") + std::to_string(ax) + (exclusive ? ", exclusive" : "") + (reverse ? ", reverse" : "");
  m.value_type = s;
  m.aligned = {};
  m.value_fn = "fn value(i: u32) -> " + t + " {\n  let q = i % " + I + ";\n  let j = (i / " + I + ") % " + N + ";\n  let o = i / (" + I +
               " * " + N + ");\n  let last = " + pos("j") + (exclusive ? "" : " + 1u") + ";\n  var acc = " + zero +
               ";\n  for (var k = 0u; k < last; k = k + 1u) {\n    let v = ld_x((o * " + N + " + " + pos("k") + ") * " + I +
               " + q);\n    acc = select(acc + v, v, k == 0u);\n  }\n  return acc;\n}\n";
  return map_program(a, m, error);
}

}  // namespace

void register_reduce_emitters(std::map<std::string, EmitterEntry>& t) {
  const ops::DTypeSet num32 = ops::kFloat32Like | ops::DTypeSet{DType::i8, DType::i16, DType::i32, DType::u8, DType::u16, DType::u32};
  for (const char* n : {"sum", "prod", "max", "min", "argmax", "argmin"}) t[n] = {emit_reduce, num32};
  for (const char* n : {"mean", "variance", "logsumexp"}) t[n] = {emit_reduce, ops::kFloat32Like};
  t["cumsum"] = {emit_cumsum, num32};
  t["softmax"] = {emit_softmax, ops::kFloat32Like};
  t["log_softmax"] = {emit_softmax, ops::kFloat32Like};
}

}  // namespace rung::webgpu
