// scatter_add (per target position, the updates landing on it in update order through the
// canonical tree, then one add to x; positions no update reaches keep x's bits) and quantize
// (q8_0 / q4_0 block encoding: scale and codes computed per output byte from the block, the
// bytes packed four to a word; non-finite blocks and overflowing scales raise the status).
#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/tree.h"

namespace rung::webgpu {
namespace {

std::size_t norm_axis(std::int64_t ax, std::size_t rank) {
  return static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(rank) : ax);
}

std::optional<Program> emit_scatter_add(const KernelArgs& a, std::string& error) {
  const TensorDesc& x = a.in[0];
  std::size_t ax = norm_axis(a.attrs.integer("axis"), x.shape.size());
  std::uint64_t post = 1, n = x.shape[ax], nidx = a.in[1].numel();
  for (std::size_t d = ax + 1; d < x.shape.size(); ++d) post *= x.shape[d];
  if (nidx > kTreeMaxValues) {
    error = "more than 2^24 updates per target";
    return std::nullopt;
  }
  Scalar s = scalar_of(x.dtype);
  std::string t(wgsl_type(s));
  MapSpec m;
  m.title = "scatter_add: x[p] + canonical sum of the updates landing on p, in update order";
  m.value_type = s;
  m.aligned = {0};
  m.status_slot = static_cast<int>(a.in.size() + a.out.size());
  std::string head = "fn value(i: u32) -> " + t + " {\n  let q = i % " + u32_lit(post) + ";\n  let k = i32((i / " + u32_lit(post) + ") % " +
                     u32_lit(n) + ");\n  let pre = i / " + u32_lit(post * n) + ";\n";
  std::string loop = "  for (var j = 0u; j < " + u32_lit(nidx) + "; j = j + 1u) {\n    let t = i32(ld_indices(j));\n" +
                     "    if (t < 0 || t >= " + i32_lit(static_cast<std::int64_t>(n)) + ") { status[0] = 1u; }\n" +
                     "    if (t == k) {\n      let u = ld_updates((pre * " + u32_lit(nidx) + " + j) * " + u32_lit(post) + " + q);\n";
  if (s == Scalar::f32) {
    m.extra_code = {tree_code("acc", "f32", "a + b", "0.0f")};
    m.value_fn = head + "  acc_reset();\n  var any = false;\n" + loop + "      acc_push(u);\n      any = true;\n    }\n  }\n" +
                 "  if (!any) { return ld_x(i); }\n  return ld_x(i) + acc_result();\n}\n";
  } else {
    m.value_fn = head + "  var acc = ld_x(i);\n" + loop + "      acc = acc + u;  // integers wrap: order-free\n    }\n  }\n  return acc;\n}\n";
  }
  auto p = map_program(a, m, error);
  if (!p) return std::nullopt;
  p->scratch_words.push_back(1);
  p->can_fail = true;
  p->fail_message = "an index lies outside [0, " + std::to_string(n) + ")";
  return p;
}

std::optional<Program> emit_quantize(const KernelArgs& a, std::string& error) {
  bool q8 = a.out[0].dtype == DType::q8_0;
  std::uint64_t blocks = a.in[0].numel() / 32, qb = q8 ? 34 : 18, bytes = blocks * qb, words = (bytes + 3) / 4;
  if (words * 4 > a.caps.max_binding || a.in[0].numel() * 4 > a.caps.max_binding) {
    error = "quantize beyond one binding is not split";
    return std::nullopt;
  }
  Module m(a, std::string("quantize to ") + (q8 ? "q8_0: d = f16(amax / 127), codes RNE(x / d) in [-127, 127]"
                                                  : "q4_0: d = f16(m / -8) (m the largest magnitude), codes RNE(x / d) + 8 in [0, 15]"));
  m.bind(0, "x", Scalar::f32, false, a.in[0].to_string());
  m.bind(1, "out_q", Scalar::u32, true, a.out[0].to_string() + " as bytes");
  m.bind(2, "status", Scalar::u32, true, "status word: 1 = a non-finite block, 2 = a scale overflowing f16");
  m.use("round_f16");
  m.use("div_cr");
  m.constant("BLOCKS", blocks);
  m.constant("QB", qb);
  m.constant("NBYTES", bytes);
  m.code(R"(// binary16 bits of an f32 that already holds a binary16 value.
fn f16_bits(v: f32) -> u32 {
  let b = bitcast<u32>(v);
  let sign = (b >> 16u) & 0x8000u;
  let a = abs(v);
  if (a >= 65536.0f) { return sign | 0x7c00u; }
  if (a < 6.103515625e-5f) { return sign | u32(a * 16777216.0f); }  // subnormal: multiples of 2^-24
  return sign | ((((b >> 23u) & 0xffu) - 112u) << 10u) | ((b >> 13u) & 0x3ffu);
}
// The block's scale as f16 bits (status on a non-finite block or an overflowing scale).
fn scale_bits(blk: u32) -> u32 {
  var amax = 0.0f;
  var m = 0.0f;
  for (var i = 0u; i < 32u; i = i + 1u) {
    let v = x[blk * 32u + i];
    if ((bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u) { status[0] = 1u; return 0u; }
    let av = abs(v);
    if (av > amax) { amax = av; m = v; }
  }
)" + std::string(q8 ? "  let h = f16_bits(round_f16(div_cr(amax, 127.0f)));\n"
                    : "  var h = 0u;\n  if (amax != 0.0f) { h = f16_bits(round_f16(div_cr(m, -8.0f))); }\n") +
         R"(  if ((h & 0x7fffu) == 0x7c00u) { status[0] = 2u; }
  return h;
}
fn f16_value(h: u32) -> f32 {
  let e = (h >> 10u) & 0x1fu;
  let mant = h & 0x3ffu;
  var v: f32;
  if (e == 0u) { v = f32(mant) * 5.9604644775390625e-8f; } else { v = bitcast<f32>(((e + 112u) << 23u) | (mant << 13u)); }
  return select(v, -v, (h & 0x8000u) != 0u);
}
fn code(blk: u32, i: u32, d: f32) -> i32 {
  if (d == 0.0f) { return 0; }
)" + std::string(q8 ? "  return i32(clamp(round(div_cr(x[blk * 32u + i], d)), -127.0f, 127.0f));\n"
                    : "  return i32(clamp(round(div_cr(x[blk * 32u + i], d)), -8.0f, 7.0f));\n") +
         R"(}
// Byte k of the output.
fn qbyte_out(k: u32) -> u32 {
  let blk = k / QB;
  let o = k % QB;
  let h = scale_bits(blk);
  if (o == 0u) { return h & 0xffu; }
  if (o == 1u) { return h >> 8u; }
  let d = f16_value(h);
)" + std::string(q8 ? "  return u32(code(blk, o - 2u, d)) & 0xffu;\n"
                    : "  let j = o - 2u;\n  return u32(code(blk, j, d) + 8) | (u32(code(blk, j + 16u, d) + 8) << 4u);\n") +
         "}\n");
  std::string body = "  let w = gid.x + gid.y * nwg.x * 64u;\n  if (w >= " + u32_lit(words) + ") { return; }\n  var word = 0u;\n"
                     "  for (var t = 0u; t < 4u; t = t + 1u) {\n    let k = w * 4u + t;\n"
                     "    if (k < NBYTES) { word = word | (qbyte_out(k) << (8u * t)); }\n  }\n  out_q[w] = word;\n";
  Program p;
  p.steps.push_back(m.finish(body, 64, grid_for(words, 64, a.caps)));
  p.scratch_words = {1};
  p.can_fail = true;
  p.fail_message = "a block holds an inf or NaN, or its scale overflows f16";
  return p;
}

}  // namespace

void register_scatter_quant_emitters(std::map<std::string, EmitterEntry>& t) {
  t["scatter_add"] = {emit_scatter_add, ops::kFloat32Like | ops::DTypeSet{DType::i8, DType::i16, DType::i32, DType::u8, DType::u16, DType::u32}};
  t["quantize"] = {emit_quantize, ops::kFloat32Like};
}

}  // namespace rung::webgpu
