// Optimizer updates (sgd_update, adam_update: one map per output, the reference's operation
// order), the block-quantized family (dequantize, linear_q with its float and int8 paths:
// f16 scales and codes decoded from the raw block bytes in integer arithmetic) and CSR
// sparse ops (csr_matmul = SpMM, csr_matvec, csr_to_dense: a validation dispatch raises the
// status word like the reference's N0012, then one fma chain per output over the row's
// stored entries).
#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"

namespace rung::webgpu {
namespace {

const char* kBlockBytes = R"(// Byte `o` of a block-quantized tensor held as u32 words (little-endian).
fn qbyte(o: u32) -> u32 { return (QWORDS[o / 4u] >> ((o % 4u) * 8u)) & 0xffu; }
// binary16 bits -> f32, exact (subnormals included), in integer arithmetic.
fn f16_bits_to_f32(h: u32) -> f32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) { return bitcast<f32>(sign | bitcast<u32>(f32(m) * 5.9604644775390625e-8f)); }
  if (e == 31u) { return bitcast<f32>(sign | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}
)";

std::string block_code(DType q, const std::string& words) {
  std::string bytes = q == DType::q8_0 ? "34u" : "18u";
  std::string s = kBlockBytes;
  s.replace(s.find("QWORDS"), 6, words);
  s += "const QBYTES: u32 = " + bytes + ";  // bytes per block of 32 values\n";
  s += "fn qscale(b: u32) -> f32 { let o = b * QBYTES; return f16_bits_to_f32(qbyte(o) | (qbyte(o + 1u) << 8u)); }\n";
  if (q == DType::q8_0)
    s += "fn qcode(b: u32, i: u32) -> i32 { return (i32(qbyte(b * QBYTES + 2u + i)) << 24u) >> 24u; }  // int8\n";
  else
    s += "fn qcode(b: u32, i: u32) -> i32 {\n  let v = qbyte(b * QBYTES + 2u + (i & 15u));\n"
         "  return i32(select(v >> 4u, v & 15u, i < 16u)) - 8;  // low nibbles first, offset 8\n}\n";
  return s;
}

std::optional<Program> emit_sgd(const KernelArgs& a, std::string& error) {
  float lr = static_cast<float>(a.attrs.real("lr")), mom = static_cast<float>(a.attrs.real("momentum")),
        wd = static_cast<float>(a.attrs.real("weight_decay"));
  // rmul: every product rounds on its own (a driver may otherwise fuse it into the add).
  std::string g1 = "  var gi = ld_g(i);\n";
  if (wd != 0.0f) g1 += "  let d = rmul(" + f32_lit(wd) + ", ld_p(i));\n  gi = gi + d;\n";
  std::string v1 = g1 + "  let m = rmul(" + f32_lit(mom) + ", ld_velocity(i));\n  let v1 = m + gi;\n";
  Program p;
  for (int out = 0; out < 2; ++out) {
    MapSpec m;
    m.title = out == 0 ? "sgd: p' = p - lr * vel'" : "sgd: vel' = momentum * vel + (g + wd * p)";
    m.output = out;
    m.aligned = {0, 1, 2};
    m.helpers = {"rmul"};
    m.value_fn = "fn value(i: u32) -> f32 {\n" + v1 + (out == 0 ? "  return ld_p(i) - rmul(" + f32_lit(lr) + ", v1);\n}\n" : "  return v1;\n}\n");
    auto st = map_steps(a, m, error);
    if (!st) return std::nullopt;
    for (auto& s : *st) p.steps.push_back(std::move(s));
  }
  return p;
}

std::optional<Program> emit_adam(const KernelArgs& a, std::string& error) {
  float lr = static_cast<float>(a.attrs.real("lr")), b1 = static_cast<float>(a.attrs.real("beta1")),
        b2 = static_cast<float>(a.attrs.real("beta2")), eps = static_cast<float>(a.attrs.real("eps")),
        wd = static_cast<float>(a.attrs.real("weight_decay"));
  bool decoupled = a.attrs.boolean("decoupled");
  std::string pre = "  let p1 = ld_pows(0u) * " + f32_lit(b1) + ";\n  let p2 = ld_pows(1u) * " + f32_lit(b2) + ";\n";
  std::string body = pre + "  let c1 = 1.0f - p1;\n  let c2 = 1.0f - p2;\n  let pi = ld_p(i);\n  var gi = ld_g(i);\n";
  if (!decoupled && wd != 0.0f) body += "  let d = rmul(" + f32_lit(wd) + ", pi);\n  gi = gi + d;\n";
  body += "  let m1 = rmul(" + f32_lit(b1) + ", ld_m(i)) + rmul(" + f32_lit(1.0f - b1) + ", gi);\n";
  body += "  let v1 = rmul(" + f32_lit(b2) + ", ld_v(i)) + rmul(" + f32_lit(1.0f - b2) + ", rmul(gi, gi));\n";
  std::string full = body + "  let mhat = div_cr(m1, c1);\n  let vhat = div_cr(v1, c2);\n  var u = div_cr(mhat, sqrt_cr(vhat) + " + f32_lit(eps) + ");\n";
  if (decoupled && wd != 0.0f) full += "  let dd = rmul(" + f32_lit(wd) + ", pi);\n  u = u + dd;\n";
  const char* titles[] = {"adam: p' = p - lr * u", "adam: m' = beta1 m + (1 - beta1) g", "adam: v' = beta2 v + (1 - beta2) g^2",
                          "adam: pows' = pows * [beta1, beta2]"};
  Program p;
  for (int out = 0; out < 4; ++out) {
    MapSpec m;
    m.title = titles[out];
    m.output = out;
    if (out < 3) m.aligned = {0, 1, 2, 3};
    m.helpers = {"rmul", "div_cr", "sqrt_cr"};
    std::string ret = out == 0   ? full + "  return pi - rmul(" + f32_lit(lr) + ", u);\n"
                      : out == 1 ? body + "  return m1;\n"
                      : out == 2 ? body + "  return v1;\n"
                                 : pre + "  return select(p2, p1, i == 0u);\n";
    m.value_fn = "fn value(i: u32) -> f32 {\n" + ret + "}\n";
    auto st = map_steps(a, m, error);
    if (!st) return std::nullopt;
    for (auto& s : *st) p.steps.push_back(std::move(s));
  }
  return p;
}

std::optional<Program> emit_dequantize(const KernelArgs& a, std::string& error) {
  MapSpec m;
  m.title = std::string("dequantize ") + std::string(dtype_info(a.in[0].dtype).name) + ": d * code (exact in f32)";
  m.extra_code = {block_code(a.in[0].dtype, "q")};
  m.value_fn = "fn value(i: u32) -> f32 { return qscale(i / 32u) * f32(qcode(i / 32u, i % 32u)); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_linear_q(const KernelArgs& a, std::string& error) {
  std::uint64_t N = a.in[1].shape[0], K = a.in[1].shape[1], nb = K / 32;
  bool int8 = a.attrs.string("compute") == "int8";
  MapSpec m;
  m.title = int8 ? "linear_q (int8): per block exact integer dot, fma((dx * dw), isum, acc)"
                 : "linear_q (float): fma chain over k of x * (d * code)";
  m.extra_code = {block_code(a.in[1].dtype, "w")};
  if (a.in.size() > 2) m.aligned = {};
  std::string f = "fn value(o: u32) -> f32 {\n  let n = o % " + u32_lit(N) + ";\n  let r = o / " + u32_lit(N) + ";\n  var acc = 0.0f;\n";
  if (!int8) {
    f += "  for (var k = 0u; k < " + u32_lit(K) + "; k = k + 1u) {\n    let b = n * " + u32_lit(nb) +
         " + k / 32u;\n    acc = fma(ld_x(r * " + u32_lit(K) + " + k), qscale(b) * f32(qcode(b, k % 32u)), acc);\n  }\n";
  } else {
    m.helpers = {"is_nan", "div_cr"};
    f += "  for (var blk = 0u; blk < " + u32_lit(nb) + "; blk = blk + 1u) {\n"
         "    let x0 = r * " + u32_lit(K) + " + blk * 32u;\n"
         "    var amax = 0.0f;\n    var finite = true;\n"
         "    for (var t = 0u; t < 32u; t = t + 1u) {\n"
         "      let v = ld_x(x0 + t);\n"
         "      if ((bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u) { finite = false; }\n"
         "      amax = max(amax, abs(v));\n    }\n"
         "    if (!finite) { return bitcast<f32>(0x7fc00000u); }\n"
         "    let dx = div_cr(amax, 127.0f);\n"
         "    let b = n * " + u32_lit(nb) + " + blk;\n"
         "    var isum = 0;\n"
         "    for (var t = 0u; t < 32u; t = t + 1u) {\n"
         "      var qx = 0;\n"
         "      if (dx != 0.0f) { qx = i32(clamp(round(div_cr(ld_x(x0 + t), dx)), -127.0f, 127.0f)); }\n"
         "      isum = isum + qx * qcode(b, t);\n    }\n"
         "    acc = fma(dx * qscale(b), f32(isum), acc);\n  }\n";
  }
  if (a.in.size() > 2) f += "  acc = acc + ld_b(n);  // bias after the chain\n";
  m.value_fn = f + "  return acc;\n}\n";
  return map_program(a, m, error);
}

// CSR: dispatch 1 validates the structure (one invocation; the reference's checks in order),
// dispatch 2 maps the outputs.
std::string csr_validation(std::uint64_t M, std::uint64_t nnz, std::uint64_t K) {
  return "  if (gid.x != 0u || gid.y != 0u) { return; }\n"
         "  if (indptr[0] != 0) { status[0] = 1u; return; }\n"
         "  for (var r = 0u; r < " + u32_lit(M) + "; r = r + 1u) { if (indptr[r + 1u] < indptr[r]) { status[0] = 1u; return; } }\n"
         "  if (indptr[" + u32_lit(M) + "] != " + i32_lit(static_cast<std::int64_t>(nnz)) + ") { status[0] = 1u; return; }\n"
         "  for (var r = 0u; r < " + u32_lit(M) + "; r = r + 1u) {\n"
         "    for (var p = indptr[r]; p < indptr[r + 1u]; p = p + 1) {\n"
         "      let c = indices[u32(p)];\n"
         "      if (c < 0 || c >= " + i32_lit(static_cast<std::int64_t>(K)) + ") { status[0] = 1u; return; }\n"
         "      if (p > indptr[r] && c <= indices[u32(p) - 1u]) { status[0] = 1u; return; }\n"
         "    }\n  }\n";
}

std::optional<Program> emit_csr(const KernelArgs& a, std::string& error) {
  const std::string& op = a.op.name;
  std::uint64_t M = a.in[0].numel() - 1, nnz = a.in[1].numel();
  std::uint64_t K = op == "csr_to_dense" ? static_cast<std::uint64_t>(a.attrs.integer("n_cols")) : a.in[3].shape[0];
  std::uint64_t N = op == "csr_matmul" ? a.in[3].shape[1] : 1;
  if (scalar_of(a.in[0].dtype) != Scalar::i32) {
    error = "CSR index tensors must be signed integers";
    return std::nullopt;
  }
  Program p;
  int status = static_cast<int>(a.in.size() + a.out.size());
  p.scratch_words = {1};
  p.can_fail = true;
  p.fail_message = "the CSR structure is invalid (indptr not starting at 0 / not monotone / not ending at nnz, or a column "
                   "index out of [0, " + std::to_string(K) + ") or not strictly increasing in its row)";
  Module v(a, "validate the CSR structure");
  v.bind(0, "indptr", Scalar::i32, false, a.in[0].to_string());
  v.bind(1, "indices", Scalar::i32, false, a.in[1].to_string());
  v.bind(status, "status", Scalar::u32, true, "status word");
  p.steps.push_back(v.finish(csr_validation(M, nnz, K), 1, {1, 1, 1}));
  MapSpec m;
  m.value_type = scalar_of(a.out[0].dtype);
  // K = 0: no entry can be stored (the validation step refuses any) and nothing is read, but a
  // constant divisor or clamp bound of 0 / -1 is a WGSL compile error: use K = 1 there.
  const std::uint64_t Kc = std::max<std::uint64_t>(K, 1);
  if (op == "csr_to_dense") {
    m.title = "csr_to_dense: stored bits copied, +0 elsewhere";
    std::string t(wgsl_type(m.value_type));
    m.value_fn = "fn value(o: u32) -> " + t + " {\n  let r = o / " + u32_lit(Kc) + ";\n  let c = i32(o % " + u32_lit(Kc) +
                 ");\n  for (var p = ld_indptr(r); p < ld_indptr(r + 1u); p = p + 1) {\n    if (ld_indices(u32(p)) == c) { return ld_values(u32(p)); }\n  }\n  return " +
                 std::string(m.value_type == Scalar::f32 ? "0.0f" : m.value_type == Scalar::i32 ? "0" : "0u") + ";\n}\n";
  } else {
    m.title = op == "csr_matmul" ? "SpMM: per output the fma chain over the row's stored entries" : "SpMV: per row the fma chain";
    std::string dense = op == "csr_matmul" ? "b" : "x";
    const std::uint64_t Nc = std::max<std::uint64_t>(N, 1);  // N = 0: no output, but no constant divisor of 0 either
    m.value_fn = "fn value(o: u32) -> f32 {\n  let r = o / " + u32_lit(Nc) + ";\n  let j = o % " + u32_lit(Nc) +
                 ";\n  var acc = 0.0f;\n  for (var p = ld_indptr(r); p < ld_indptr(r + 1u); p = p + 1) {\n" +
                 "    let c = u32(clamp(ld_indices(u32(p)), 0, " + i32_lit(static_cast<std::int64_t>(Kc) - 1) + "));\n" +
                 "    acc = fma(ld_values(u32(p)), ld_" + dense + "(c * " + u32_lit(N) + " + j), acc);\n  }\n  return acc;\n}\n";
  }
  auto st = map_steps(a, m, error);
  if (!st) return std::nullopt;
  for (auto& s : *st) p.steps.push_back(std::move(s));
  return p;
}

}  // namespace

void register_misc_emitters(std::map<std::string, EmitterEntry>& t) {
  t["sgd_update"] = {emit_sgd, ops::DTypeSet{DType::f32}};
  t["adam_update"] = {emit_adam, ops::DTypeSet{DType::f32}};
  t["dequantize"] = {emit_dequantize, ops::kQuantized};
  t["linear_q"] = {emit_linear_q, ops::kFloat32Like};
  const ops::DTypeSet idx = {DType::i8, DType::i16, DType::i32, DType::i64};
  t["csr_matmul"] = {emit_csr, idx};
  t["csr_matvec"] = {emit_csr, idx};
  t["csr_to_dense"] = {emit_csr, idx};
}

}  // namespace rung::webgpu
