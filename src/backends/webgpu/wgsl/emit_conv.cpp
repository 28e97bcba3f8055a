// conv, conv_transpose, max_pool and avg_pool (docs/semantics.md §17) as map kernels: one
// invocation per output element runs the reference's sequence for it (src/ops/kernels_conv*.cpp,
// ops/pool_plane.h): conv's one fma chain from the bias over (c, kh, kw), a tap outside the
// input a real fma(+0, w, acc) step; max_pool's ordered scan, decided on the bits; avg_pool's
// canonical tree over the (kh, kw) taps and one correctly rounded division. The geometry is
// the reference's own (ops/window_geometry.h), baked in as constants; a 1-D window is the
// 2-D one with a leading axis of extent 1.
#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/tree.h"
#include "ops/kernels_conv.h"

namespace rung::webgpu {
namespace {

using ops::Extents;
using ops::Window2;
using ops::WindowAxis;

Extents spatial(const Extents& s) { return Extents(s.begin() + 2, s.end()); }

std::string i32c(std::uint64_t v) { return i32_lit(static_cast<std::int64_t>(v)); }

// Flat output index `i` of [N, CH, OH, OW] to `oh`, `ow` and the plane `p` = n * CH + ch.
std::string split_output(const Window2& g) {
  return "  let ow = i % " + u32_lit(g.ax[1].out) + ";\n  let oh = (i / " + u32_lit(g.ax[1].out) + ") % " + u32_lit(g.ax[0].out) +
         ";\n  let p = i / " + u32_lit(g.out_plane()) + ";\n";
}

// `ih` / `iw`: the input coordinate of tap kh / kw of output oh / ow (< 0 or >= in outside).
std::string tap_coord(const WindowAxis& ax, const char* var, const char* o, const char* k) {
  return std::string("let ") + var + " = i32(" + o + " * " + u32_lit(ax.stride) + " + " + k + " * " + u32_lit(ax.dilation) + ") - " +
         i32c(ax.pad_before) + ";";
}

std::string inside(const Window2& g) {
  return "ih >= 0 && ih < " + i32c(g.ax[0].in) + " && iw >= 0 && iw < " + i32c(g.ax[1].in);
}

bool fits_binding(const KernelArgs& a, std::string& error) {
  for (std::size_t i = 0; i < a.in.size(); ++i)
    if (a.in[i].numel() * 4 > a.caps.max_binding) {
      error = "operand `" + input_name(a, i) + "` (" + a.in[i].to_string() + ") exceeds maxStorageBufferBindingSize; " + a.op.name +
              " binds its operands whole";
      return false;
    }
  return true;
}

// conv and conv_transpose: acc = b[m] (or +0); for c, kh, kw increasing acc = fma(x tap, w, acc).
std::optional<Program> emit_conv(const KernelArgs& a, std::string& error) {
  if (!fits_binding(a, error)) return std::nullopt;
  bool transposed = a.op.name == "conv_transpose";
  const Extents &xs = a.in[0].shape, &ws = a.in[1].shape;
  Window2 g = transposed ? ops::conv_transpose_window(xs, ws, a.attrs) : ops::window2(spatial(xs), spatial(ws), a.attrs, false);
  const WindowAxis &ah = g.ax[0], &aw = g.ax[1];
  std::uint64_t C = xs[1], G = static_cast<std::uint64_t>(a.attrs.integer("groups")), Cg = C / G;
  std::uint64_t M = a.out[0].shape[1], Mg = M / G;
  MapSpec m;
  m.title = std::string(transposed ? "conv_transpose" : "conv") + ": one fma chain per output over (c, kh, kw) from the bias";
  m.comments = {transposed ? "tap (c, kh, kw) of output (oh, ow) meets x[(oh + before - kh*d) / s] where that divides and lies "
                             "inside, else +0 (a real fma step)"
                           : "tap (c, kh, kw) of output (oh, ow) reads x[oh*s + kh*d - before], +0 outside x (a real fma step)",
                "window: " + std::to_string(ah.in) + "x" + std::to_string(aw.in) + " -> " + std::to_string(ah.out) + "x" +
                    std::to_string(aw.out) + ", kernel " + std::to_string(ah.k) + "x" + std::to_string(aw.k) + ", groups " +
                    std::to_string(G)};
  std::string f = "fn value(i: u32) -> f32 {\n" + split_output(g) + "  let m = p % " + u32_lit(M) + ";\n  let n = p / " + u32_lit(M) +
                  ";\n  let c0 = (m / " + u32_lit(Mg) + ") * " + u32_lit(Cg) + ";\n";
  f += a.in.size() > 2 ? "  var acc = ld_b(m);\n" : "  var acc = 0.0f;\n";
  f += "  for (var ci = 0u; ci < " + u32_lit(Cg) + "; ci = ci + 1u) {\n    let xc = (n * " + u32_lit(C) + " + c0 + ci) * " +
       u32_lit(ah.in * aw.in) + ";\n";
  std::string wrow = transposed ? "((c0 + ci) * " + u32_lit(Mg) + " + m % " + u32_lit(Mg) + ")" : "(m * " + u32_lit(Cg) + " + ci)";
  f += "    let wc = " + wrow + " * " + u32_lit(ah.k * aw.k) + ";\n";
  auto source = [](const WindowAxis& ax, const char* var, const char* o, const char* k) {
    // conv_transpose: t = o + before - k*d; the input index t / s where t >= 0, s divides t and t / s < in, else -1.
    std::string t = std::string("t") + var;
    return "let " + t + " = i32(" + o + " + " + u32_lit(ax.pad_before) + ") - i32(" + k + " * " + u32_lit(ax.dilation) + ");\n" +
           "      let " + var + " = select(-1, " + t + " / " + i32c(ax.stride) + ", " + t + " >= 0 && " + t + " % " + i32c(ax.stride) +
           " == 0);";
  };
  f += "    for (var kh = 0u; kh < " + u32_lit(ah.k) + "; kh = kh + 1u) {\n      " +
       (transposed ? source(ah, "ih", "oh", "kh") : tap_coord(ah, "ih", "oh", "kh")) + "\n";
  f += "      for (var kw = 0u; kw < " + u32_lit(aw.k) + "; kw = kw + 1u) {\n        " +
       (transposed ? source(aw, "iw", "ow", "kw") : tap_coord(aw, "iw", "ow", "kw")) + "\n";
  f += "        let hit = " + inside(g) + ";\n";
  f += "        let xv = select(0.0f, ld_x(select(0u, xc + u32(ih) * " + u32_lit(aw.in) + " + u32(iw), hit)), hit);\n";
  f += "        acc = fma(xv, ld_w(wc + kh * " + u32_lit(aw.k) + " + kw), acc);\n      }\n    }\n  }\n  return acc;\n}\n";
  m.value_fn = f;
  return map_program(a, m, error);
}

// The pools' taps: `t` the offset of tap (kh, kw) within the plane, `hit` whether it lies in x.
std::string pool_loop_head(const Window2& g) {
  return "  for (var kh = 0u; kh < " + u32_lit(g.ax[0].k) + "; kh = kh + 1u) {\n    " + tap_coord(g.ax[0], "ih", "oh", "kh") +
         "\n    for (var kw = 0u; kw < " + u32_lit(g.ax[1].k) + "; kw = kw + 1u) {\n      " + tap_coord(g.ax[1], "iw", "ow", "kw") +
         "\n      let hit = " + inside(g) + ";\n      let t = select(0u, u32(ih) * " + u32_lit(g.ax[1].in) + " + u32(iw), hit);\n";
}

Window2 pool_geometry(const KernelArgs& a) {
  Extents k;
  for (auto v : a.attrs.integers("kernel_shape")) k.push_back(static_cast<std::uint64_t>(v));
  return ops::window2(spatial(a.in[0].shape), k, a.attrs, a.attrs.boolean("ceil_mode"));
}

// max_pool: the scan of the taps inside x in (kh, kw) order; the best is replaced by a NaN
// (the first stays), a greater value or +0 over -0. Compared on the bits (sign-folded keys,
// a total order with -0 below +0), so no compiler or flushing device changes the choice.
// Two maps over the same scan: the values, then the flat indices (i64 held in 32 bits).
std::optional<Program> emit_max_pool(const KernelArgs& a, std::string& error) {
  if (!fits_binding(a, error)) return std::nullopt;
  if (a.in[0].numel() > 0x7fffffffull) {
    error = std::string(kDeviceLacks) + "max_pool indices beyond 2^31 need 64-bit integers";
    return std::nullopt;
  }
  Window2 g = pool_geometry(a);
  std::string scan = "// The scan of output i: the best tap's offset in x's flat order.\nfn best_at(i: u32) -> u32 {\n" + split_output(g) +
                     "  let base = p * " + u32_lit(g.in_plane()) + ";\n  var any = false;\n  var nan = false;\n  var key = 0u;\n  var at = 0u;\n" +
                     pool_loop_head(g) +
                     "      if (hit && !nan) {\n"
                     "        let b = bitcast<u32>(ld_x(base + t));\n"
                     "        let v_nan = (b & 0x7fffffffu) > 0x7f800000u;\n"
                     "        let k = select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);  // order-preserving key\n"
                     "        if (!any || v_nan || k > key) { any = true; nan = v_nan; key = k; at = base + t; }\n"
                     "      }\n    }\n  }\n  return at;\n}\n";
  Program p;
  for (int out = 0; out < 2; ++out) {
    MapSpec m;
    m.output = out;
    m.title = out == 0 ? "max_pool values: the first maximum of each window (NaN wins, +0 over -0)" : "max_pool indices: flat position in x";
    m.value_type = out == 0 ? Scalar::f32 : Scalar::i32;
    m.extra_code = {scan};
    m.value_fn = out == 0 ? "fn value(i: u32) -> f32 { return ld_x(best_at(i)); }\n" : "fn value(i: u32) -> i32 { return i32(best_at(i)); }\n";
    auto steps = map_steps(a, m, error);
    if (!steps) return std::nullopt;
    for (auto& st : *steps) p.steps.push_back(std::move(st));
  }
  return p;
}

// avg_pool: the canonical tree over the window's taps in (kh, kw) order (+0 outside x), then
// div_cr by the count (taps inside x, or inside the padded input with count_include_pad).
std::optional<Program> emit_avg_pool(const KernelArgs& a, std::string& error) {
  if (!fits_binding(a, error)) return std::nullopt;
  Window2 g = pool_geometry(a);
  if (g.taps() > kTreeMaxValues) {
    error = "avg_pool windows of more than 2^24 taps";
    return std::nullopt;
  }
  bool include_pad = a.attrs.boolean("count_include_pad");
  auto count = [&](const WindowAxis& ax, const char* o) {
    // Taps j of output o whose coordinate lies in [lo, hi), as avg_pool_count.
    std::int64_t lo = include_pad ? -static_cast<std::int64_t>(ax.pad_before) : 0;
    std::uint64_t hi = ax.in + (include_pad ? ax.pad_after : 0);
    return "  var n_" + std::string(o) + " = 0u;\n  for (var j = 0u; j < " + u32_lit(ax.k) + "; j = j + 1u) {\n    let c = i32(" + o + " * " +
           u32_lit(ax.stride) + " + j * " + u32_lit(ax.dilation) + ") - " + i32c(ax.pad_before) + ";\n    n_" + o + " = n_" + o +
           " + select(0u, 1u, c >= " + i32_lit(lo) + " && c < " + i32c(hi) + ");\n  }\n";
  };
  MapSpec m;
  m.title = std::string("avg_pool: canonical sum of the taps / count (") + (include_pad ? "taps inside the padded input" : "taps inside x") + ")";
  m.helpers = {"div_cr"};
  m.extra_code = {tree_code("acc", "f32", "a + b", "0.0f")};
  m.value_fn = "fn value(i: u32) -> f32 {\n" + split_output(g) + "  let base = p * " + u32_lit(g.in_plane()) + ";\n  acc_reset();\n" +
               pool_loop_head(g) + "      acc_push(select(0.0f, ld_x(base + t), hit));\n    }\n  }\n" + count(g.ax[0], "oh") +
               count(g.ax[1], "ow") + "  return div_cr(acc_result(), f32(n_oh * n_ow));\n}\n";
  return map_program(a, m, error);
}

}  // namespace

void register_conv_emitters(std::map<std::string, EmitterEntry>& t) {
  t["conv"] = {emit_conv, ops::kFloat32Like};
  t["conv_transpose"] = {emit_conv, ops::kFloat32Like};
  t["max_pool"] = {emit_max_pool, ops::kFloat32Like};
  t["avg_pool"] = {emit_avg_pool, ops::kFloat32Like};
}

}  // namespace rung::webgpu
