// Shape ops as map kernels: every output element is a bit copy of one input element (or a
// constant), so the WGSL is index arithmetic baked from the shapes. Ops that index with data
// (gather, one_hot) check every index and raise the status word, which the executor turns
// into the reference's N0012.
#include <algorithm>
#include <cmath>

#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
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
  t["gather_elements"] = {emit_gather_elements, plain};
}

}  // namespace rung::webgpu
