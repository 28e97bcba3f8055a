// The random family on Philox4x32-10 in u32 arithmetic (src/ops/numerics/philox.h): element
// i reads stream word position + i of (seed, offset), so any split over invocations draws
// the reference's words. random_bits is bit-exact; uniform and normal add rung's f32
// log/sin/cos (normal's class is tight in prod).
#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"

namespace rung::webgpu {
namespace {

const char* kPhilox = R"(// High 32 bits of a 32x32-bit product, from 16-bit limbs (WGSL has no 64-bit integers).
fn mulhi32(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}
// Philox4x32-10: ten rounds, the key bumped by the Weyl increments between rounds.
fn philox(ctr: vec4u, key0: u32, key1: u32) -> vec4u {
  var c = ctr;
  var k0 = key0;
  var k1 = key1;
  for (var r = 0u; r < 10u; r = r + 1u) {
    if (r > 0u) { k0 = k0 + 0x9E3779B9u; k1 = k1 + 0xBB67AE85u; }
    let hi0 = mulhi32(0xD2511F53u, c.x);
    let lo0 = 0xD2511F53u * c.x;
    let hi1 = mulhi32(0xCD9E8D57u, c.z);
    let lo1 = 0xCD9E8D57u * c.z;
    c = vec4u(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
  }
  return c;
}
// Word n = (n_hi, n_lo) of stream (SEED, OFFSET): block n / 4, lane n % 4.
fn stream_word(n_lo: u32, n_hi: u32) -> u32 {
  let q_lo = (n_lo >> 2u) | (n_hi << 30u);
  let q_hi = n_hi >> 2u;
  let out = philox(vec4u(q_lo, q_hi, OFFSET_LO, OFFSET_HI), SEED_LO, SEED_HI);
  return out[n_lo & 3u];
}
// Stream position of element i: POSITION + i as a 64-bit pair.
fn position_of(i: u32) -> vec2u {
  let lo = POS_LO + i;
  return vec2u(lo, POS_HI + select(0u, 1u, lo < POS_LO));
}
)";

void stream_constants(Module& m, const ops::Attrs& at) {
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  std::uint64_t seed = u(at.integer("seed")), off = u(at.integer("offset")), pos = u(at.integer("position"));
  m.constant("SEED_LO", seed & 0xffffffffu);
  m.constant("SEED_HI", seed >> 32);
  m.constant("OFFSET_LO", off & 0xffffffffu);
  m.constant("OFFSET_HI", off >> 32);
  m.constant("POS_LO", pos & 0xffffffffu);
  m.constant("POS_HI", pos >> 32);
}

std::optional<Program> emit_random(const KernelArgs& a, std::string& error) {
  const std::string& op = a.op.name;
  std::uint64_t n = a.out[0].numel();
  if (n * 4 > a.caps.max_binding) {
    error = "random outputs beyond one binding are not split";
    return std::nullopt;
  }
  Module m(a, op == "random_bits" ? "Philox4x32-10 words" : op == "random_uniform" ? "low + (high - low) * u" : "mean + std * z (Box-Muller)");
  m.bind(0, "out_y", scalar_of(a.out[0].dtype), true, a.out[0].to_string());
  stream_constants(m, a.attrs);
  std::string fit = fit_function(m, a.out[0].dtype);
  m.code(kPhilox);
  std::string value;
  if (op == "random_bits") {
    value = "fn value(i: u32) -> u32 { let p = position_of(i); return stream_word(p.x, p.y); }\n";
  } else if (op == "random_uniform") {
    float low = static_cast<float>(a.attrs.real("low")), high = static_cast<float>(a.attrs.real("high"));
    m.use("rmul");
    value = "fn value(i: u32) -> f32 {\n  let p = position_of(i);\n  let u = f32(stream_word(p.x, p.y) >> 8u) * 5.9604644775390625e-8f;\n"
            "  return " + f32_lit(low) + " + rmul(" + f32_lit(high - low) + ", u);  // span rounded once, on the host\n}\n";
  } else {
    float mean = static_cast<float>(a.attrs.real("mean")), sd = static_cast<float>(a.attrs.real("std"));
    m.use("rmul");
    m.use("log_r");
    m.use("sincos_r");
    m.use("sqrt_cr");
    value = "fn value(i: u32) -> f32 {\n  let p = position_of(i);\n  let first = p.x & 0xfffffffeu;  // the pair (2k, 2k + 1)\n"
            "  let u1 = f32((stream_word(first, p.y) >> 8u) + 1u) * 5.9604644775390625e-8f;\n"
            "  let u2 = f32(stream_word(first + 1u, p.y) >> 8u) * 5.9604644775390625e-8f;\n"
            "  let r = sqrt_cr(rmul(-2.0f, log_r(u1)));\n  let t = rmul(6.28318548f, u2);\n"
            "  let z = select(rmul(r, sincos_r(t, false)), rmul(r, sincos_r(t, true)), (p.x & 1u) == 0u);\n"
            "  return " + f32_lit(mean) + " + rmul(" + f32_lit(sd) + ", z);\n}\n";
  }
  m.code(value);
  std::string body = "  let i = gid.x + gid.y * nwg.x * 64u;\n  if (i >= " + u32_lit(n) + ") { return; }\n  out_y[i] = " + fit + "(value(i));\n";
  Program p;
  p.steps.push_back(m.finish(body, 64, grid_for(n, 64, a.caps)));
  return p;
}

}  // namespace

void register_random_emitters(std::map<std::string, EmitterEntry>& t) {
  // Random ops have no operands: the dtype set is what they produce.
  t["random_bits"] = {emit_random, ops::DTypeSet{DType::u32}};
  t["random_uniform"] = {emit_random, ops::kFloat32Like};
  t["random_normal"] = {emit_random, ops::kFloat32Like};
}

}  // namespace rung::webgpu
