// Shape ops as map kernels: every output element is a bit copy of one input element (or a
// constant; resize's linear and cubic modes: weighted sums in the reference's order), so the
// WGSL is index arithmetic baked from the shapes. Ops that index with data
// (gather, one_hot) check every index and raise the status word, which the executor turns
// into the reference's N0012.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cmath>

#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
#include "ops/resize_plan.h"
#include "ops/slice_bounds.h"

namespace rung::webgpu {
namespace {

using ops::Extents;

std::string tname(const TensorDesc& t) { return std::string(wgsl_type(scalar_of(t.dtype))); }

// "((i / s_d) % e_d)" for dimension d of `shape`.
std::string coord(const Extents& shape, std::size_t d, const std::string& i) {
  auto st = row_major_strides(shape);
  std::string q = st[d] == 1 ? i : "(" + i + " / " + u32_lit(st[d]) + ")";
  return d == 0 ? q : "(" + q + " % " + u32_lit(shape[d]) + ")";
}

std::size_t norm_axis(std::int64_t ax, std::size_t rank) {
  return static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(rank) : ax);
}

std::string zero_of(Scalar s) { return s == Scalar::f32 ? "0.0f" : s == Scalar::i32 ? "0" : "0u"; }

MapSpec copy_spec(const KernelArgs& a, const std::string& title) {
  MapSpec m;
  m.title = title;
  m.value_type = scalar_of(a.out[0].dtype);
  return m;
}

std::optional<Program> emit_reshape(const KernelArgs& a, std::string& error) {
  MapSpec m = copy_spec(a, "reshape: the same elements in row-major order");
  m.aligned = {0};
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return ld_x(i); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_broadcast_to(const KernelArgs& a, std::string& error) {
  MapSpec m = copy_spec(a, "broadcast_to (numpy rules)");
  Extents xs = a.in[0].shape;
  if (a.op.name == "expand_like") {
    const auto& axes = a.attrs.integers("axes");
    if (!axes.empty()) {
      std::vector<bool> inserted(a.out[0].shape.size(), false);
      for (auto ax : axes) inserted[norm_axis(ax, a.out[0].shape.size())] = true;
      Extents full;
      std::size_t k = 0;
      for (std::size_t i = 0; i < inserted.size(); ++i) full.push_back(inserted[i] ? 1 : xs[k++]);
      xs = full;
    }
    m.title = "expand_like: x broadcast back over the reduced axes";
  }
  if (xs == a.out[0].shape) m.aligned = {0};
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return ld_x(" + broadcast_index(xs, a.out[0].shape, "i") + "); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_fill(const KernelArgs& a, std::string& error) {
  bool ones = a.op.name == "ones_like";
  MapSpec m = copy_spec(a, ones ? "ones_like" : "zeros_like");
  m.aligned = {0};
  Scalar s = scalar_of(a.out[0].dtype);
  std::string v = ones ? (s == Scalar::f32 ? "1.0f" : s == Scalar::i32 ? "1" : "1u") : zero_of(s);
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return " + v + "; }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_transpose(const KernelArgs& a, std::string& error) {
  const Extents& xs = a.in[0].shape;
  const Extents& ys = a.out[0].shape;
  std::vector<std::size_t> perm;
  for (auto p : a.attrs.integers("perm")) perm.push_back(norm_axis(p, xs.size()));
  if (perm.empty())
    for (std::size_t d = xs.size(); d-- > 0;) perm.push_back(d);
  auto xst = row_major_strides(xs);
  std::string idx;
  for (std::size_t d = 0; d < ys.size(); ++d) {
    if (ys[d] == 1) continue;
    idx += (idx.empty() ? "" : " + ") + coord(ys, d, "i") + " * " + u32_lit(xst[perm[d]]);
  }
  MapSpec m = copy_spec(a, "transpose: y[i] = x[j], j[perm[d]] = i[d]");
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return ld_x(" + (idx.empty() ? "0u" : idx) + "); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_slice(const KernelArgs& a, std::string& error) {
  const Extents& ys = a.out[0].shape;
  auto plan = ops::slice_axes(a.in[0].shape, a.attrs);  // Python's slice.indices, as the reference resolves it
  auto xst = row_major_strides(a.in[0].shape);
  std::string idx;
  for (std::size_t d = 0; d < ys.size(); ++d) {
    std::string c = ys[d] == 1 ? "0" : "i32(" + coord(ys, d, "i") + ")";
    // A lone element (count <= 1) never multiplies its step, so a huge step stays out of the i32s.
    std::string xc = ys[d] <= 1 ? i32_lit(std::max<std::int64_t>(plan[d].start, 0))
                                : "(" + i32_lit(plan[d].start) + " + " + c + " * " + i32_lit(plan[d].step) + ")";
    idx += std::string(idx.empty() ? "" : " + ") + "u32(" + xc + ") * " + u32_lit(xst[d]);
  }
  MapSpec m = copy_spec(a, "slice: x[start + i * step] per axis");
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return ld_x(" + (idx.empty() ? "0u" : idx) + "); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_concat(const KernelArgs& a, std::string& error) {
  const Extents& ys = a.out[0].shape;
  std::size_t ax = norm_axis(a.attrs.integer("axis"), ys.size());
  std::string t = tname(a.out[0]);
  std::string f = "fn value(i: u32) -> " + t + " {\n  let c = " + coord(ys, ax, "i") + ";\n";
  auto yst = row_major_strides(ys);
  std::uint64_t base = 0;
  for (std::size_t k = 0; k < a.in.size(); ++k) {
    const Extents& xs = a.in[k].shape;
    std::uint64_t len = xs[ax];
    // x index: the same coordinates, with c - base along the axis.
    auto xst = row_major_strides(xs);
    std::string idx;
    for (std::size_t d = 0; d < ys.size(); ++d) {
      std::string cd = d == ax ? "(c - " + u32_lit(base) + ")" : coord(ys, d, "i");
      if (xs[d] == 1 && d != ax) continue;
      idx += (idx.empty() ? "" : " + ") + cd + " * " + u32_lit(xst[d]);
    }
    f += "  if (c < " + u32_lit(base + len) + ") { return ld_" + input_name(a, k) + "(" + (idx.empty() ? "0u" : idx) + "); }\n";
    base += len;
  }
  f += "  return " + zero_of(scalar_of(a.out[0].dtype)) + ";\n}\n";
  MapSpec m = copy_spec(a, "concat along axis " + std::to_string(ax));
  m.value_fn = f;
  return map_program(a, m, error);
}

std::optional<Program> emit_pad(const KernelArgs& a, std::string& error) {
  const Extents& xs = a.in[0].shape;
  const Extents& ys = a.out[0].shape;
  const auto& pads = a.attrs.integers("pads");
  const std::string& mode = a.attrs.string("mode");
  Scalar s = scalar_of(a.out[0].dtype);
  std::string t = tname(a.out[0]);
  double v = a.attrs.real("value");
  std::string fill = s == Scalar::f32 ? f32_lit(v) : s == Scalar::i32 ? i32_lit(static_cast<std::int64_t>(v)) : u32_lit(static_cast<std::uint64_t>(v));
  auto xst = row_major_strides(xs);
  std::string f = "fn value(i: u32) -> " + t + " {\n  var k = 0u;\n";
  for (std::size_t d = 0; d < ys.size(); ++d) {
    std::int64_t before = d * 2 < pads.size() ? pads[d * 2] : 0;
    std::int64_t n = static_cast<std::int64_t>(xs[d]);
    f += "  {\n    var c = i32(" + coord(ys, d, "i") + ") - " + i32_lit(before) + ";\n";
    if (mode == "constant") {
      f += "    if (c < 0 || c >= " + i32_lit(n) + ") { return " + fill + "; }\n";
    } else if (mode == "edge") {
      f += "    c = clamp(c, 0, " + i32_lit(n - 1) + ");\n";
    } else {  // reflect
      f += "    if (c < 0) { c = -c; }\n    if (c >= " + i32_lit(n) + ") { c = " + i32_lit(2 * (n - 1)) + " - c; }\n";
    }
    f += "    k = k + u32(c) * " + u32_lit(xst[d]) + ";\n  }\n";
  }
  f += "  return ld_x(k);\n}\n";
  MapSpec m = copy_spec(a, "pad (" + mode + ")");
  m.value_fn = f;
  return map_program(a, m, error);
}

// Integer value -> the output's compute type (exact for |v| < 2^24 in f32, then the fit
// function rounds to f16/bf16).
std::string from_int(Scalar s, const std::string& v_i32) {
  if (s == Scalar::f32) return "f32(" + v_i32 + ")";
  if (s == Scalar::u32) return "bitcast<u32>(" + v_i32 + ")";
  return v_i32;
}

std::optional<Program> emit_iota(const KernelArgs& a, std::string& error) {
  const Extents& ys = a.out[0].shape;
  std::size_t ax = norm_axis(a.attrs.integer("axis"), ys.size());
  if (ys.empty() || ys[ax] > (1u << 24)) {
    error = "iota extents beyond 2^24 are not exact in f32 index arithmetic";
    return std::nullopt;
  }
  Scalar s = scalar_of(a.out[0].dtype);
  MapSpec m = copy_spec(a, "iota along axis " + std::to_string(ax));
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return " + from_int(s, "i32(" + coord(ys, ax, "i") + ")") + "; }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_arange(const KernelArgs& a, std::string& error) {
  Scalar s = scalar_of(a.out[0].dtype);
  if (s == Scalar::f32) {
    error = std::string(kDeviceLacks) + "arange with a float dtype is defined in binary64 (start + i*step), which WGSL lacks";
    return std::nullopt;
  }
  double start = a.attrs.real("start"), step = a.attrs.real("step");
  double last = start + step * static_cast<double>(a.out[0].numel());
  if (std::fabs(start) > 2147483647.0 || std::fabs(last) > 2147483647.0) {
    error = "arange values beyond 32 bits";
    return std::nullopt;
  }
  MapSpec m = copy_spec(a, "arange: start + i * step (exact integers)");
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " { return " +
               from_int(s, i32_lit(static_cast<std::int64_t>(start)) + " + i32(i) * " + i32_lit(static_cast<std::int64_t>(step))) + "; }\n";
  return map_program(a, m, error);
}

Program with_status(Program p, std::string message) {
  p.scratch_words.push_back(1);
  p.can_fail = true;
  p.fail_message = std::move(message);
  return p;
}

std::optional<Program> emit_one_hot(const KernelArgs& a, std::string& error) {
  const Extents& ys = a.out[0].shape;
  std::uint64_t depth = ys.back();
  Scalar s = scalar_of(a.out[0].dtype);
  std::string one = s == Scalar::f32 ? "1.0f" : s == Scalar::i32 ? "1" : "1u";
  MapSpec m = copy_spec(a, "one_hot, depth " + std::to_string(depth));
  m.status_slot = static_cast<int>(a.in.size() + a.out.size());
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " {\n  let k = i32(ld_indices(i / " + u32_lit(depth) + "));\n" +
               "  if (k < 0 || k >= " + i32_lit(static_cast<std::int64_t>(depth)) + ") { status[0] = 1u; }\n" +
               "  return select(" + zero_of(s) + ", " + one + ", k == i32(i % " + u32_lit(depth) + "));\n}\n";
  auto p = map_program(a, m, error);
  if (!p) return std::nullopt;
  return with_status(std::move(*p), "an index lies outside [0, depth)");
}

// gather and embedding: y[pre, j, post] = x[pre, idx[j], post].
std::optional<Program> emit_gather(const KernelArgs& a, std::string& error) {
  bool embedding = a.op.name == "embedding";
  const TensorDesc& x = a.in[0];
  const TensorDesc& ind = a.in[1];
  std::size_t ax = embedding ? 0 : norm_axis(a.attrs.integer("axis"), x.shape.size());
  std::uint64_t post = 1, n = x.shape[ax];
  for (std::size_t d = ax + 1; d < x.shape.size(); ++d) post *= x.shape[d];
  std::uint64_t nidx = ind.numel();
  std::string xname = input_name(a, 0), iname = input_name(a, 1);
  MapSpec m = copy_spec(a, embedding ? "embedding: rows of the table picked by ids" : "gather along axis " + std::to_string(ax));
  m.status_slot = static_cast<int>(a.in.size() + a.out.size());
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " {\n" +
               "  let q = i % " + u32_lit(post) + ";              // position after the axis\n" +
               "  let j = (i / " + u32_lit(post) + ") % " + u32_lit(nidx) + ";  // which index\n" +
               "  let p = i / " + u32_lit(post * nidx) + ";         // position before the axis\n" +
               "  let k = i32(ld_" + iname + "(j));\n" +
               "  if (k < 0 || k >= " + i32_lit(static_cast<std::int64_t>(n)) + ") { status[0] = 1u; return ld_" + xname + "(0u); }\n" +
               "  return ld_" + xname + "((p * " + u32_lit(n) + " + u32(k)) * " + u32_lit(post) + " + q);\n}\n";
  auto p = map_program(a, m, error);
  if (!p) return std::nullopt;
  return with_status(std::move(*p), "an index lies outside [0, " + std::to_string(n) + ")");
}


// resize: the host's tables (ops::resize_axes, the reference's) baked in as private arrays.
// The reference's passes (highest axis first, each value kept in f32) are evaluated nested per
// output element: one level per resampled axis, the lowest axis outermost, so every level
// computes exactly the intermediate value its pass would have stored.
std::string bits_f32(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "bitcast<f32>(0x%08xu)", std::bit_cast<std::uint32_t>(static_cast<float>(v)));
  return b;
}

std::string u32_table(const std::string& name, const std::vector<std::uint32_t>& v) {
  std::string n = u32_lit(std::max<std::size_t>(v.size(), 1));
  std::string t = "var<private> " + name + ": array<u32, " + n + "> = array<u32, " + n + ">(";
  for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]) + "u";
  return t + (v.empty() ? "0u" : "") + ");\n";
}

std::optional<Program> emit_resize(const KernelArgs& a, std::string& error) {
  const Extents& xs = a.in[0].shape;
  const Extents& ys = a.out[0].shape;
  auto axes = ops::resize_axes(xs, ys, a.attrs);
  auto order = ops::resize_pass_order(axes);
  std::sort(order.begin(), order.end());  // levels: the lowest axis outermost
  const bool nearest = a.attrs.string("mode") == "nearest" || order.empty();
  const std::string t = tname(a.out[0]);
  // nearest stores the value rounded once to the dtype (the reference's store); the passes
  // start from it rounded to f32, their compute type.
  ops::HostTensor ext_t(dtype_info(a.out[0].dtype).is_float ? a.out[0].dtype : DType::f32, {});
  ext_t.store_f64(0, a.attrs.real("extrapolation_value"));
  const std::string ext = bits_f32(nearest ? ext_t.load_f64(0) : a.attrs.real("extrapolation_value"));
  auto xst = row_major_strides(xs);
  std::uint64_t words = 0;
  std::vector<std::string> tables;
  std::string base;  // offset of the copied (identity) axes
  for (std::size_t d = 0; d < ys.size(); ++d)
    if (axes[d].identity && ys[d] > 1) base += (base.empty() ? "" : " + ") + coord(ys, d, "i") + " * " + u32_lit(xst[d]);
  if (base.empty()) base = "0u";
  for (std::size_t d : order) {
    const ops::ResizeAxis& ax = axes[d];
    std::vector<std::uint32_t> idx, w, out;
    for (auto j : ax.index) idx.push_back(static_cast<std::uint32_t>(j));
    for (auto v : ax.weight) w.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(v)));  // the reference's rounding
    for (auto f : ax.outside) out.push_back(f);
    words += idx.size() + w.size() + out.size();
    std::string n = std::to_string(d);
    tables.push_back(u32_table("RI" + n, idx) + (nearest ? "" : u32_table("RW" + n, w)) + u32_table("RO" + n, out));
  }
  if (words > (1u << 16)) {
    error = "resize tables of " + std::to_string(words) + " words exceed the 65536 baked into a shader";
    return std::nullopt;
  }
  MapSpec m = copy_spec(a, "resize (" + a.attrs.string("mode") + ", " + a.attrs.string("coordinate_mode") + ")");
  m.extra_code = tables;
  std::string x = "ld_" + input_name(a, 0);
  std::string f;
  if (nearest) {
    f = "fn value(i: u32) -> " + t + " {\n  var k = " + base + ";\n";
    for (std::size_t d : order) {
      std::string n = std::to_string(d);
      f += "  {\n    let o = " + coord(ys, d, "i") + ";\n";
      if (dtype_info(a.out[0].dtype).is_float) f += "    if (RO" + n + "[o] != 0u) { return " + ext + "; }\n";
      f += "    k = k + RI" + n + "[o] * " + u32_lit(xst[d]) + ";\n  }\n";
    }
    m.value_fn = f + "  return " + x + "(k);\n}\n";
    return map_program(a, m, error);
  }
  m.helpers = {"rmul"};
  m.comments = {"per level: acc = -0, then acc = acc + w * v per tap of nonzero weight, in tap order"};
  for (std::size_t k = order.size(); k-- > 0;) {
    std::size_t d = order[k];
    std::string n = std::to_string(d), K = u32_lit(axes[d].taps);
    std::string inner = k + 1 < order.size() ? "level" + std::to_string(order[k + 1]) + "(i, off + s)" : x + "(off + s)";
    f += "fn level" + n + "(i: u32, off: u32) -> f32 {\n  let o = " + coord(ys, d, "i") + ";\n" +
         "  if (RO" + n + "[o] != 0u) { return " + ext + "; }\n" +
         "  var acc = bitcast<f32>(0x80000000u);\n" +
         "  for (var t = 0u; t < " + K + "; t = t + 1u) {\n" +
         "    let w = bitcast<f32>(RW" + n + "[o * " + K + " + t]);\n" +
         "    if (w != 0.0f) {\n      let s = RI" + n + "[o * " + K + " + t] * " + u32_lit(xst[d]) + ";\n" +
         "      acc = acc + rmul(w, " + inner + ");\n    }\n  }\n  return acc;\n}\n";
  }
  m.extra_code.push_back(f);
  m.value_fn = "fn value(i: u32) -> " + t + " { return level" + std::to_string(order.front()) + "(i, " + base + "); }\n";
  return map_program(a, m, error);
}

// gather_elements: the output has the indices' shape; its element i reads x at i's own
// coordinate with the axis coordinate replaced by the index.
std::optional<Program> emit_gather_elements(const KernelArgs& a, std::string& error) {
  const TensorDesc& x = a.in[0];
  const TensorDesc& ind = a.in[1];
  std::size_t ax = norm_axis(a.attrs.integer("axis"), x.shape.size());
  std::uint64_t n = x.shape[ax];
  auto xs = row_major_strides(x.shape);
  std::string xname = input_name(a, 0), iname = input_name(a, 1);
  std::string off;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (d == ax || ind.shape[d] <= 1 || ind.numel() == 0) continue;  // extent 1: coordinate 0; empty: no element runs
    off += " + " + coord(ind.shape, d, "i") + " * " + u32_lit(xs[d]);
  }
  MapSpec m = copy_spec(a, "gather_elements along axis " + std::to_string(ax));
  m.status_slot = static_cast<int>(a.in.size() + a.out.size());
  m.aligned = {1};
  m.value_fn = "fn value(i: u32) -> " + tname(a.out[0]) + " {\n" +
               "  let k = i32(ld_" + iname + "(i));\n" +
               "  if (k < 0 || k >= " + i32_lit(static_cast<std::int64_t>(n)) + ") { status[0] = 1u; return ld_" + xname + "(0u); }\n" +
               "  return ld_" + xname + "(u32(k) * " + u32_lit(xs[ax]) + off + ");\n}\n";
  auto p = map_program(a, m, error);
  if (!p) return std::nullopt;
  return with_status(std::move(*p), "an index lies outside [0, " + std::to_string(n) + ")");
}

}  // namespace

void register_shape_emitters(std::map<std::string, EmitterEntry>& t) {
  const ops::DTypeSet plain = ops::kFloat32Like | ops::kInt | ops::kBool;
  t["reshape"] = {emit_reshape, plain};
  t["broadcast_to"] = {emit_broadcast_to, plain};
  t["expand_like"] = {emit_broadcast_to, plain};
  t["zeros_like"] = {emit_fill, plain};
  t["ones_like"] = {emit_fill, ops::kFloat32Like | ops::kInt};
  t["transpose"] = {emit_transpose, plain};
  t["slice"] = {emit_slice, plain};
  t["concat"] = {emit_concat, plain};
  t["pad"] = {emit_pad, plain};
  t["iota"] = {emit_iota, ops::kFloat32Like | ops::kInt};
  t["arange"] = {emit_arange, ops::kInt};
  t["one_hot"] = {emit_one_hot, ops::kInt};
  t["gather"] = {emit_gather, plain};
  t["embedding"] = {emit_gather, plain};
  t["resize"] = {emit_resize, plain};
  t["gather_elements"] = {emit_gather_elements, plain};
}

}  // namespace rung::webgpu
