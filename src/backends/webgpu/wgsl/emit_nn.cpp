// NN composites: layer_norm / rms_norm (group statistics, then elements), rope (per element,
// angles from rung's f32 pow/sin/cos), causal attention (per query row: scores, max,
// canonical sum, probabilities into scratch; then the p·v chains), cross_entropy and mse
// (row losses in f32 scratch, then the canonical sum). Each follows the reference's steps in
// order (src/ops/kernels_*.cpp).
#include <bit>
#include <cmath>
#include <cstdio>

#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/tree.h"
#include "ops/numerics/special.h"

namespace rung::webgpu {
namespace {

using ops::Extents;

std::size_t norm_axis(std::int64_t ax, std::size_t rank) {
  return static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(rank) : ax);
}

// A kernel with one invocation per "row" that writes scratch (not an op output).
Step rows_step(const KernelArgs& a, const std::string& title, std::uint64_t rows, const std::vector<std::pair<int, std::string>>& inputs,
               int scratch_slot, const std::string& scratch_what, const std::vector<std::string>& helpers,
               const std::vector<std::string>& code, const std::string& row_body, int status_slot = -1,
               const std::string& row_var = "r") {
  Module m(a, title);
  for (const auto& [slot, name] : inputs) {
    Scalar s = static_cast<std::size_t>(slot) < a.in.size() ? scalar_of(a.in[slot].dtype) : Scalar::f32;
    m.bind(slot, name, s, false, static_cast<std::size_t>(slot) < a.in.size() ? a.in[slot].to_string() : "scratch");
  }
  m.bind(scratch_slot, "scratch", Scalar::f32, true, scratch_what);
  if (status_slot >= 0) m.bind(status_slot, "status", Scalar::u32, true, "status word: nonzero = data refused");
  for (const auto& h : helpers) m.use(h);
  for (const auto& c : code) m.code(c);
  std::string body = "  let " + row_var + " = gid.x + gid.y * nwg.x * 64u;\n  if (" + row_var + " >= " + u32_lit(rows) + ") { return; }\n" +
                     row_body;
  return m.finish(body, 64, grid_for(rows, 64, a.caps));
}

void append_map(Program& p, std::vector<Step> steps, const std::vector<int>& extra_slots) {
  for (auto& st : steps) {
    for (int s : extra_slots) st.bindings.push_back(Binding{s});
    p.steps.push_back(std::move(st));
  }
}

std::optional<Program> emit_norm(const KernelArgs& a, std::string& error) {
  bool layer = a.op.name == "layer_norm";
  const Extents& xs = a.in[0].shape;
  std::size_t ax = norm_axis(a.attrs.integer("axis"), xs.size());
  std::uint64_t n = 1;
  for (std::size_t d = ax; d < xs.size(); ++d) n *= xs[d];
  std::uint64_t groups = n == 0 ? 0 : a.in[0].numel() / n;
  if (n > kTreeMaxValues) {
    error = "normalised groups longer than 2^24";
    return std::nullopt;
  }
  std::string nf = f32_lit(static_cast<double>(n)), eps = f32_lit(a.attrs.real("eps"));
  Program p;
  int scratch = static_cast<int>(a.in.size() + a.out.size());
  p.scratch_words = {2 * std::max<std::uint64_t>(groups, 1)};
  std::string loop = "  for (var k = 0u; k < " + u32_lit(n) + "; k = k + 1u) {";
  std::string body = "  let b = r * " + u32_lit(n) + ";\n";
  if (layer) {
    body += "  acc_reset();\n" + loop + " acc_push(x[b + k]); }\n  let mean = div_cr(acc_result(), " + nf + ");\n" + "  acc_reset();\n" + loop +
            " let d = x[b + k] - mean; acc_push(rmul(d, d)); }\n" + "  let rr = div_cr(1.0f, sqrt_cr(div_cr(acc_result(), " + nf + ") + " + eps + "));\n" +
            "  scratch[2u * r] = mean;\n  scratch[2u * r + 1u] = rr;\n";
  } else {
    body += "  acc_reset();\n" + loop + " let v = x[b + k]; acc_push(rmul(v, v)); }\n" + "  scratch[2u * r + 1u] = div_cr(1.0f, sqrt_cr(div_cr(acc_result(), " + nf +
            ") + " + eps + "));\n";
  }
  // Groups are independent and contiguous: beyond one binding, the statistics run over windows of groups.
  auto windows = row_windows(a.caps, groups, n, 1, error);
  if (!windows) return std::nullopt;
  if (2 * groups * 4 > a.caps.max_binding) {
    error = "normalisation statistics beyond one binding";
    return std::nullopt;
  }
  for (const RowWindow& w : *windows) {
    std::string title = layer ? "group statistics: mean, 1/sqrt(var + eps)" : "group statistic: 1/sqrt(mean(x^2) + eps)";
    std::string wbody = body;
    if (w.split) {
      title += " (groups " + std::to_string(w.row0) + ".." + std::to_string(w.row0 + w.rows) + ", x bound from element " +
               std::to_string(w.base) + ": x exceeds maxStorageBufferBindingSize)";
      wbody = "  let r = " + u32_lit(w.row0) + " + rl;\n  let b = r * " + u32_lit(n) + " - " + u32_lit(w.base) + ";\n" +
              body.substr(body.find('\n') + 1);
    }
    Step st = rows_step(a, title, w.rows, {{0, "x"}}, scratch, "per group: mean, r", {"div_cr", "sqrt_cr", "rmul"},
                        {tree_code("acc", "f32", "a + b", "0.0f")}, wbody, -1, w.split ? "rl" : "r");
    if (w.split) st.bindings[0] = Binding{0, w.base * 4, w.words * 4};
    p.steps.push_back(std::move(st));
  }
  MapSpec m;
  m.title = layer ? "y = ((x - mean) * r) * gamma + beta" : "y = (x * r) * gamma";
  m.aligned = {0};
  m.extra_code = {"@group(0) @binding(" + std::to_string(a.in.size() + 1) + ") var<storage, read> stats: array<f32>;  // dispatch 1\n"};
  m.helpers = {"rmul"};
  std::string f = "fn value(i: u32) -> f32 {\n  let g = i / " + u32_lit(n) + ";\n";
  f += layer ? "  var v = rmul(ld_x(i) - stats[2u * g], stats[2u * g + 1u]);\n" : "  var v = rmul(ld_x(i), stats[2u * g + 1u]);\n";
  if (a.in.size() > 1) f += "  v = rmul(v, ld_gamma(i % " + u32_lit(n) + "));\n";
  if (layer && a.in.size() > 2) f += "  v = v + ld_beta(i % " + u32_lit(n) + ");\n";
  m.value_fn = f + "  return v;\n}\n";
  auto steps = map_steps(a, m, error);
  if (!steps) return std::nullopt;
  append_map(p, std::move(*steps), {scratch});
  return p;
}

std::optional<Program> emit_rope(const KernelArgs& a, std::string& error) {
  const Extents& xs = a.in[0].shape;
  std::uint64_t D = xs.back(), S = xs[xs.size() - 2], half = D / 2;
  bool inter = a.attrs.string("layout") == "interleaved";
  MapSpec m;
  m.title = std::string("rope (") + (inter ? "interleaved" : "half") + " pairs)";
  m.helpers = {"sincos_r"};
  m.aligned = {0};
  m.comments = {"inv = pow(base, -((2p) / D)) from the host (the reference's values); theta = f32(pos) * inv; a' = a c - b s; b' = a s + b c"};
  std::string pos = a.in.size() > 1 ? "f32(ld_positions(s))" : "f32(s)";
  std::string f = "fn value(i: u32) -> f32 {\n  let q = i % " + u32_lit(D) + ";\n  let row = i - q;\n  let s = (i / " + u32_lit(D) +
                  ") % " + u32_lit(S) + ";\n";
  if (inter) f += "  let p = q / 2u;\n  let second = (q % 2u) == 1u;\n  let ia = row + 2u * p;\n  let ib = ia + 1u;\n";
  else f += "  let p = q % " + u32_lit(half) + ";\n  let second = q >= " + u32_lit(half) + ";\n  let ia = row + p;\n  let ib = ia + " + u32_lit(half) + ";\n";
  // inv = pow(base, -(2p / D)) depends on attributes and the static D only: the reference's
  // own f32 values, computed here and written as bits. theta = pos * inv multiplies a position
  // of up to 65535 by inv, so one ulp of inv computed on the device moved the result by up to
  // 5e-4 (261 ulp at base 1e6).
  float base = static_cast<float>(a.attrs.real("base")), df = static_cast<float>(D);
  std::string table = "var<private> INV: array<f32, " + u32_lit(std::max<std::uint64_t>(half, 1)) + "> = array<f32, " +
                      u32_lit(std::max<std::uint64_t>(half, 1)) + ">(";
  for (std::uint64_t j = 0; j < std::max<std::uint64_t>(half, 1); ++j) {
    float inv = num::pow_f32(base, -(static_cast<float>(2 * j) / df));
    char bits[40];
    std::snprintf(bits, sizeof bits, "bitcast<f32>(0x%08xu)", std::bit_cast<std::uint32_t>(inv));
    table += (j ? ", " : "") + std::string(bits);
  }
  m.extra_code = {table + ");\n"};
  f += "  let theta = " + pos + " * INV[p];\n  let c = sincos_r(theta, true);\n  let sn = sincos_r(theta, false);\n";
  f += "  let va = ld_x(ia);\n  let vb = ld_x(ib);\n  if (second) { return va * sn + vb * c; }\n  return va * c - vb * sn;\n}\n";
  m.value_fn = f;
  if (a.out[0].numel() * 4 > a.caps.max_binding) {
    error = "rope beyond one binding is not split";
    return std::nullopt;
  }
  return map_program(a, m, error);
}

std::optional<Program> emit_attention(const KernelArgs& a, std::string& error) {
  const Extents &eq = a.in[0].shape, &ek = a.in[1].shape, &ev = a.in[2].shape, &ey = a.out[0].shape;
  std::uint64_t Sq = eq[eq.size() - 2], D = eq.back(), Sk = ek[ek.size() - 2], Dv = ev.back();
  Extents bq(eq.begin(), eq.end() - 2), bk(ek.begin(), ek.end() - 2), bv(ev.begin(), ev.end() - 2), by(ey.begin(), ey.end() - 2);
  std::uint64_t B = ops::element_count(by);
  bool causal = a.attrs.boolean("causal");
  double scale = a.attrs.has("scale") ? a.attrs.real("scale") : 0.0;
  // The reference's scale: the attribute rounded to f32, or 1.0f / sqrt_f32(D) (two correctly rounded steps, done here).
  std::string scale_expr = a.attrs.has("scale") ? f32_lit(scale) : f32_lit(1.0f / std::sqrt(static_cast<float>(D)));
  bool has_mask = a.in.size() > 3;
  bool bool_mask = has_mask && a.in[3].dtype == DType::boolean;
  if (Sk > kTreeMaxValues) {
    error = "more than 2^24 keys";
    return std::nullopt;
  }
  if (Sk == 0) {  // no key at all: every output is +0, as for a row with no allowed key
    MapSpec none;
    none.title = "no keys: every output is +0";
    none.value_fn = "fn value(idx: u32) -> f32 { return 0.0f; }\n";
    return map_program(a, none, error);
  }
  Program p;
  int scratch = static_cast<int>(a.in.size() + a.out.size());
  p.scratch_words = {std::max<std::uint64_t>(B * Sq * Sk, 1)};
  if (B * Sq * Sk * 4 > a.caps.max_binding) {
    error = "the attention probabilities [B, Sq, Sk] exceed one binding";
    return std::nullopt;
  }
  Extents scores = by;
  scores.push_back(Sq);
  scores.push_back(Sk);
  std::string code;
  code += "fn qb(z: u32) -> u32 { return (" + broadcast_index(bq, by, "z") + ") * " + u32_lit(Sq * D) + "; }\n";
  code += "fn kb(z: u32) -> u32 { return (" + broadcast_index(bk, by, "z") + ") * " + u32_lit(Sk * D) + "; }\n";
  code += "fn allowed(z: u32, i: u32, j: u32) -> bool {\n";
  code += causal ? "  if (j + " + u32_lit(Sq) + " > i + " + u32_lit(Sk) + ") { return false; }  // causal: j <= i + Sk - Sq\n" : "";
  if (bool_mask) code += "  return mask[" + broadcast_index(a.in[3].shape, scores, "((z * " + u32_lit(Sq) + " + i) * " + u32_lit(Sk) + " + j)") + "] != 0u;\n";
  else code += "  return true;\n";
  code += "}\n";
  code += "fn score(z: u32, i: u32, j: u32) -> f32 {\n  var acc = 0.0f;\n  for (var d = 0u; d < " + u32_lit(D) +
          "; d = d + 1u) { acc = fma(q[qb(z) + i * " + u32_lit(D) + " + d], k[kb(z) + j * " + u32_lit(D) + " + d], acc); }\n";
  code += "  var s = rmul(acc, " + scale_expr + ");\n";
  if (has_mask && !bool_mask)
    code += "  s = s + mask[" + broadcast_index(a.in[3].shape, scores, "((z * " + u32_lit(Sq) + " + i) * " + u32_lit(Sk) + " + j)") + "];\n";
  code += "  return s;\n}\n";
  std::string body =
      "  let z = r / " + u32_lit(Sq) + ";\n  let i = r % " + u32_lit(Sq) + ";\n  let o = r * " + u32_lit(Sk) + ";\n"
      "  var any = false;\n  var m = bitcast<f32>(0xff800000u);\n"
      "  for (var j = 0u; j < " + u32_lit(Sk) + "; j = j + 1u) {\n"
      "    if (allowed(z, i, j)) { let s = score(z, i, j); scratch[o + j] = s; m = fmax(m, s); any = true; }\n"
      "    else { scratch[o + j] = -1.0f; }\n  }\n"
      "  if (!any) { return; }  // no allowed key: the outputs stay +0 (dispatch 2 sees only -1 markers)\n"
      "  acc_reset();\n"
      "  for (var j = 0u; j < " + u32_lit(Sk) + "; j = j + 1u) {\n"
      "    if (allowed(z, i, j)) { let e = exp_r(scratch[o + j] - m); scratch[o + j] = e; acc_push(e); } else { acc_push(0.0f); }\n  }\n"
      "  let l = acc_result();\n"
      "  for (var j = 0u; j < " + u32_lit(Sk) + "; j = j + 1u) {\n"
      "    if (allowed(z, i, j)) { scratch[o + j] = div_cr(scratch[o + j], l); }\n  }\n";
  std::vector<std::pair<int, std::string>> ins = {{0, "q"}, {1, "k"}};
  if (has_mask) ins.push_back({3, "mask"});
  p.steps.push_back(rows_step(a, "scores, max, canonical sum of exp, probabilities p = e / l (-1 marks a key not allowed)",
                              B * Sq, ins, scratch, "p[z, i, j]", {"fmax", "exp_r", "div_cr", "rmul"}, {tree_code("acc", "f32", "a + b", "0.0f"), code}, body));
  MapSpec m;
  m.title = "out_i = fma chain over allowed j of p_j * v_j";
  std::string probs = "@group(0) @binding(" + std::to_string(a.in.size() + 1) + ") var<storage, read> probs: array<f32>;  // dispatch 1\n";
  m.extra_code = {probs, "fn vb(z: u32) -> u32 { return (" + broadcast_index(bv, by, "z") + ") * " + u32_lit(Sk * Dv) + "; }\n"};
  m.value_fn = "fn value(idx: u32) -> f32 {\n  let d = idx % " + u32_lit(Dv) + ";\n  let r = idx / " + u32_lit(Dv) + ";\n  let z = r / " +
               u32_lit(Sq) + ";\n  var acc = 0.0f;\n  for (var j = 0u; j < " + u32_lit(Sk) + "; j = j + 1u) {\n" +
               "    let pj = probs[r * " + u32_lit(Sk) + " + j];\n    if (is_nan(pj) || pj >= 0.0f) { acc = fma(pj, ld_v(vb(z) + j * " + u32_lit(Dv) +
               " + d), acc); }\n  }\n  return acc;\n}\n";
  m.helpers = {"is_nan"};  // a NaN probability (NaN or inf scores) is used, not taken for the -1 marker
  auto steps = map_steps(a, m, error);
  if (!steps) return std::nullopt;
  append_map(p, std::move(*steps), {scratch});
  return p;
}

std::optional<Program> emit_cross_entropy(const KernelArgs& a, std::string& error) {
  const Extents& xs = a.in[0].shape;
  std::uint64_t C = xs.back(), rows = a.in[1].numel();
  const std::string& red = a.attrs.string("reduction");
  bool has_ignore = a.attrs.has("ignore_index");
  std::int64_t ignore = has_ignore ? a.attrs.integer("ignore_index") : 0;
  bool is_signed = scalar_of(a.in[1].dtype) == Scalar::i32;
  if (C > kTreeMaxValues || rows > kTreeMaxValues) {
    error = "cross_entropy beyond 2^24 classes or rows";
    return std::nullopt;
  }
  Program p;
  int scratch = static_cast<int>(a.in.size() + a.out.size());
  p.scratch_words = {std::max<std::uint64_t>(rows, 1), 1};  // row losses (f32, +0 when ignored; -0 flag never used), counted flags
  p.scratch_words[1] = std::max<std::uint64_t>(rows, 1);
  p.scratch_words.push_back(1);  // status
  int counted = scratch + 1, status = scratch + 2;
  std::string ign;
  if (has_ignore) {
    if (is_signed) ign = "  if (t == " + i32_lit(ignore) + ") { scratch[r] = 0.0f; counted[r] = 0u; return; }\n";
    else if (ignore >= 0) ign = "  if (bitcast<u32>(t) == " + u32_lit(static_cast<std::uint64_t>(ignore)) + ") { scratch[r] = 0.0f; counted[r] = 0u; return; }\n";
  }
  std::string body = "  let t = i32(targets[r]);\n" + ign +
                     "  if (t < 0 || t >= " + i32_lit(static_cast<std::int64_t>(C)) + ") { status[0] = 1u; return; }\n"
                     "  counted[r] = 1u;\n  let b = r * " + u32_lit(C) + ";\n  var m = bitcast<f32>(0xff800000u);\n"
                     "  for (var j = 0u; j < " + u32_lit(C) + "; j = j + 1u) { m = fmax(m, logits[b + j]); }\n"
                     "  acc_reset();\n  for (var j = 0u; j < " + u32_lit(C) + "; j = j + 1u) { acc_push(exp_r(logits[b + j] - m)); }\n"
                     "  let l = (logits[b + u32(t)] - m) - log_r(acc_result());\n"
                     "  scratch[r] = bitcast<f32>(bitcast<u32>(l) ^ 0x80000000u);  // negation: flips the sign bit\n";
  Module m1(a, "row losses: -((x_t - m) - log(sum exp(x - m)))");
  m1.bind(0, "logits", Scalar::f32, false, a.in[0].to_string());
  m1.bind(1, "targets", scalar_of(a.in[1].dtype), false, a.in[1].to_string());
  m1.bind(scratch, "scratch", Scalar::f32, true, "row losses (f32)");
  m1.bind(counted, "counted", Scalar::u32, true, "1 where the row counts");
  m1.bind(status, "status", Scalar::u32, true, "status word: nonzero = a target out of range");
  m1.use("fmax");
  m1.use("exp_r");
  m1.use("log_r");
  m1.code(tree_code("acc", "f32", "a + b", "0.0f"));
  p.steps.push_back(m1.finish("  let r = gid.x + gid.y * nwg.x * 64u;\n  if (r >= " + u32_lit(rows) + ") { return; }\n" + body, 64,
                              grid_for(rows, 64, a.caps)));
  p.can_fail = true;
  p.fail_message = "a target lies outside [0, " + std::to_string(C) + ")";
  // Dispatch 2: the losses (none) or their canonical sum (sum, mean).
  Module m2(a, red == "none" ? "row losses out" : "canonical sum of the row losses" + std::string(red == "mean" ? " / counted rows" : ""));
  m2.bind(scratch, "losses", Scalar::f32, false, "row losses (dispatch 1)");
  m2.bind(counted, "counted", Scalar::u32, false, "counted rows (dispatch 1)");
  m2.bind(static_cast<int>(a.in.size()), "out_loss", Scalar::f32, true, a.out[0].to_string());
  std::string fit = fit_function(m2, a.out[0].dtype);
  if (red == "none") {
    p.steps.push_back(m2.finish("  let r = gid.x + gid.y * nwg.x * 64u;\n  if (r >= " + u32_lit(rows) + ") { return; }\n  out_loss[r] = " +
                                    fit + "(losses[r]);\n", 64, grid_for(rows, 64, a.caps)));
  } else {
    m2.code(tree_code("acc", "f32", "a + b", "0.0f"));
    std::string b = "  if (gid.x != 0u || gid.y != 0u) { return; }\n  acc_reset();\n  var n = 0u;\n"
                    "  for (var r = 0u; r < " + u32_lit(rows) + "; r = r + 1u) { acc_push(losses[r]); n = n + counted[r]; }\n"
                    "  let s = acc_result();\n";
    m2.use("div_cr");
    b += red == "sum" ? "  out_loss[0] = " + fit + "(s);\n" : "  out_loss[0] = " + fit + "(div_cr(s, f32(n)));\n";
    p.steps.push_back(m2.finish(b, 1, {1, 1, 1}));
  }
  return p;
}

std::optional<Program> emit_mse(const KernelArgs& a, std::string& error) {
  const std::string& red = a.attrs.string("reduction");
  std::uint64_t n = a.in[0].numel();
  if (red == "none") {
    MapSpec m;
    m.title = "mse (none): (a - b)^2";
    m.aligned = {0, 1};
    m.value_fn = "fn value(i: u32) -> f32 { let d = ld_a(i) - ld_b(i); return d * d; }\n";  // one rounding: nothing to fuse
    return map_program(a, m, error);
  }
  if (n > kTreeMaxValues) {
    error = "mse over more than 2^24 values";
    return std::nullopt;
  }
  Program p;
  Module m(a, "mse (" + red + "): canonical sum of (a - b)^2" + (red == "mean" ? " / n" : ""));
  m.bind(0, "a", Scalar::f32, false, a.in[0].to_string());
  m.bind(1, "b", Scalar::f32, false, a.in[1].to_string());
  m.bind(2, "out_loss", Scalar::f32, true, a.out[0].to_string());
  std::string fit = fit_function(m, a.out[0].dtype);
  m.code(tree_code("acc", "f32", "a + b", "0.0f"));
  m.use("rmul");
  m.use("div_cr");
  std::string b = "  if (gid.x != 0u) { return; }\n  acc_reset();\n  for (var i = 0u; i < " + u32_lit(n) +
                  "; i = i + 1u) { let d = a[i] - b[i]; acc_push(rmul(d, d)); }\n  let s = acc_result();\n";
  b += red == "sum" ? "  out_loss[0] = " + fit + "(s);\n" : "  out_loss[0] = " + fit + "(div_cr(s, " + f32_lit(static_cast<double>(n)) + "));\n";
  p.steps.push_back(m.finish(b, 1, {1, 1, 1}));
  return p;
}

}  // namespace

void register_nn_emitters(std::map<std::string, EmitterEntry>& t) {
  t["layer_norm"] = {emit_norm, ops::kFloat32Like};
  t["rms_norm"] = {emit_norm, ops::kFloat32Like};
  t["rope"] = {emit_rope, ops::kFloat32Like};
  t["attention"] = {emit_attention, ops::kFloat32Like};
  t["cross_entropy"] = {emit_cross_entropy, ops::kFloat32Like};
  t["mse"] = {emit_mse, ops::kFloat32Like};
}

}  // namespace rung::webgpu
