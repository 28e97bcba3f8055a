// Elementwise ops (arithmetic, transcendentals, comparisons, logic, where, cast, clamp) as
// map kernels: one table row per op gives the WGSL expression per compute type; broadcasting
// is index arithmetic baked from the shapes.
#include <cmath>
#include <limits>

#include "backends/webgpu/wgsl/emit_map.h"
#include "backends/webgpu/wgsl/generator.h"

namespace rung::webgpu {
namespace {

using ops::DTypeSet;

// 64-bit integers live as 32-bit words on the device: arithmetic on them would wrap at the
// wrong width, so the arithmetic tables leave them out.
constexpr DTypeSet kInt32 = {DType::i8, DType::i16, DType::i32, DType::u8, DType::u16, DType::u32};
constexpr DTypeSet kFloat32Like = ops::kFloat32Like;
constexpr DTypeSet kNumeric32 = kFloat32Like | kInt32;
// i64/u64 values are held in 32 bits (their upload checks the range): ops that cannot leave
// that range (comparisons, min/max) claim them; add and sub claim them with a check that
// refuses (A0010) a result outside the 32 bits instead of wrapping at the wrong width.
constexpr DTypeSet kWide = {DType::i64, DType::u64};

struct Row {
  DTypeSet types;
  std::string f32, i32, u32;  // expressions in `v` (unary) or `a`, `b` (binary); empty = unsupported
  std::vector<std::string> helpers;
};

const std::map<std::string, Row>& unary_rows() {
  static const std::map<std::string, Row> rows = {
      {"neg", {kFloat32Like | DTypeSet{DType::i8, DType::i16, DType::i32, DType::u8, DType::u16, DType::u32},
               "bitcast<f32>(bitcast<u32>(v) ^ 0x80000000u)", "0 - v", "0u - v", {}}},
      {"abs", {kFloat32Like | DTypeSet{DType::i8, DType::i16, DType::i32, DType::u8, DType::u16, DType::u32},
               "bitcast<f32>(bitcast<u32>(v) & 0x7fffffffu)", "select(v, 0 - v, v < 0)", "v", {}}},
      {"square", {kNumeric32, "v * v", "v * v", "v * v", {}}},
      {"sqrt", {kFloat32Like, "sqrt_cr(v)", "", "", {"sqrt_cr"}}},
      {"rsqrt", {kFloat32Like, "div_cr(1.0f, sqrt_cr(v))", "", "", {"sqrt_cr"}}},
      {"reciprocal", {kFloat32Like, "div_cr(1.0f, v)", "", "", {"div_cr"}}},
      {"relu", {kFloat32Like | DTypeSet{DType::i8, DType::i16, DType::i32},
                "select(select(0.0f, v, v > 0.0f), v, is_nan(v))", "max(v, 0)", "", {"is_nan"}}},
      {"exp", {kFloat32Like, "exp_r(v)", "", "", {"exp_r"}}},
      {"log", {kFloat32Like, "log_r(v)", "", "", {"log_r"}}},
      {"sin", {kFloat32Like, "sincos_r(v, false)", "", "", {"sincos_r"}}},
      {"cos", {kFloat32Like, "sincos_r(v, true)", "", "", {"sincos_r"}}},
      {"tanh", {kFloat32Like, "tanh_r(v)", "", "", {"tanh_r"}}},
      {"sigmoid", {kFloat32Like, "sigmoid_r(v)", "", "", {"sigmoid_r"}}},
      {"silu", {kFloat32Like, "silu_r(v)", "", "", {"silu_r"}}},
      {"erf", {kFloat32Like, "erf_r(v)", "", "", {"erf_r"}}},
      {"gelu", {kFloat32Like, "gelu_r(v)", "", "", {"gelu_r"}}},  // approximate="tanh": gelu_tanh_r
      {"floor", {kFloat32Like, "integral_r(v, 0u)", "", "", {"integral_r"}}},
      {"ceil", {kFloat32Like, "integral_r(v, 1u)", "", "", {"integral_r"}}},
      {"round", {kFloat32Like, "integral_r(v, 2u)", "", "", {"integral_r"}}},
      {"asin", {kFloat32Like, "asin_r(v)", "", "", {"atan_r"}}},
      {"acos", {kFloat32Like, "acos_r(v)", "", "", {"atan_r"}}},
      {"atan", {kFloat32Like, "atan_r(v)", "", "", {"atan_r"}}},
  };
  return rows;
}

const std::map<std::string, Row>& binary_rows() {
  static const std::map<std::string, Row> rows = {
      {"add", {kNumeric32 | kWide, "a + b", "a + b", "a + b", {}}},
      {"sub", {kNumeric32 | kWide, "a - b", "a - b", "a - b", {}}},
      {"mul", {kNumeric32, "a * b", "a * b", "a * b", {}}},
      {"div", {kNumeric32, "div_cr(a, b)", "idiv(a, b)", "udiv(a, b)", {"idiv", "div_cr"}}},
      {"maximum", {kNumeric32 | kWide, "fmax(a, b)", "max(a, b)", "max(a, b)", {"fmax"}}},
      {"minimum", {kNumeric32 | kWide, "fmin(a, b)", "min(a, b)", "min(a, b)", {"fmin"}}},
      {"pow", {kFloat32Like, "pow_r(a, b)", "", "", {"pow_r"}}},
      {"remainder", {kNumeric32, "fmod_r(a, b)", "irem(a, b)", "urem(a, b)", {"irem", "fmod_r"}}},
  };
  return rows;
}

const std::string& pick(const Row& r, Scalar s) { return s == Scalar::f32 ? r.f32 : s == Scalar::i32 ? r.i32 : r.u32; }

std::optional<Program> emit_unary(const KernelArgs& a, std::string& error) {
  const Row& row = unary_rows().at(a.op.name);
  Scalar s = scalar_of(a.in[0].dtype);
  std::string expr = pick(row, s);
  std::vector<std::string> helpers = row.helpers;
  if (a.op.name == "gelu" && a.attrs.string("approximate") == "tanh") {
    expr = "gelu_tanh_r(v)";
    helpers = {"gelu_tanh_r"};
  }
  if (expr.empty() || !row.types.contains(a.in[0].dtype)) {
    error = "`" + a.op.name + "` on " + a.in[0].to_string() + " has no WGSL kernel";
    return std::nullopt;
  }
  MapSpec m;
  m.title = a.op.name + " elementwise";
  m.value_type = s;
  m.helpers = helpers;
  m.aligned = {0};
  std::string t(wgsl_type(s));
  m.value_fn = "fn value(i: u32) -> " + t + " {\n  let v = ld_x(i);\n  return " + expr + ";\n}\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_binary(const KernelArgs& a, std::string& error) {
  const Row& row = binary_rows().at(a.op.name);
  Scalar s = scalar_of(a.in[0].dtype);
  const std::string& expr = pick(row, s);
  if (expr.empty() || !row.types.contains(a.in[0].dtype)) {
    error = "`" + a.op.name + "` on " + a.in[0].to_string() + " has no WGSL kernel";
    return std::nullopt;
  }
  const auto& out = a.out[0].shape;
  MapSpec m;
  m.title = a.op.name + " elementwise with broadcasting";
  m.value_type = s;
  m.helpers = row.helpers;
  for (int k = 0; k < 2; ++k)
    if (a.in[k].shape == out) m.aligned.push_back(k);
  std::string t(wgsl_type(s));
  // add/sub on a 64-bit integer held in 32 bits: the 32-bit result is the true one unless
  // it overflowed, which the sign (i64) or carry (u64) tests detect.
  const bool wide = kWide.contains(a.in[0].dtype) && (a.op.name == "add" || a.op.name == "sub");
  std::string check;
  if (wide) {
    m.status_slot = static_cast<int>(a.in.size() + a.out.size());
    bool add = a.op.name == "add";
    std::string overflow = s == Scalar::i32 ? (add ? "((a ^ r) & (b ^ r)) < 0" : "((a ^ b) & (a ^ r)) < 0")
                                            : (add ? "r < a" : "a < b");
    check = "  if (" + overflow + ") { status[0] = 1u; }\n";
  }
  m.value_fn = "fn value(i: u32) -> " + t + " {\n  let a = ld_a(" + broadcast_index(a.in[0].shape, out, "i") +
               ");\n  let b = ld_b(" + broadcast_index(a.in[1].shape, out, "i") + ");\n" +
               (wide ? "  let r = " + expr + ";\n" + check + "  return r;\n}\n" : "  return " + expr + ";\n}\n");
  auto p = map_program(a, m, error);
  if (!p || !wide) return p;
  p->scratch_words.push_back(1);
  p->can_fail = true;
  p->fail_code = "A0010";
  p->fail_message = "`" + a.op.name + "` on " + std::string(dtype_info(a.in[0].dtype).name) +
                    ": a result outside the 32 bits 64-bit integers have on the device";
  return p;
}

std::optional<Program> emit_compare(const KernelArgs& a, std::string& error) {
  static const std::map<std::string, std::string> ops = {{"eq", "=="}, {"ne", "!="}, {"lt", "<"},
                                                         {"le", "<="}, {"gt", ">"}, {"ge", ">="}};
  static const std::map<std::string, std::string> logic = {
      {"logical_and", "(a != 0u) && (b != 0u)"}, {"logical_or", "(a != 0u) || (b != 0u)"}, {"logical_xor", "(a != 0u) != (b != 0u)"}};
  const auto& out = a.out[0].shape;
  MapSpec m;
  m.value_type = Scalar::u32;
  std::string cond;
  if (auto it = ops.find(a.op.name); it != ops.end()) {
    cond = "a " + it->second + " b";
    m.title = a.op.name + " comparison (IEEE: false on NaN except ne)";
    if (scalar_of(a.in[0].dtype) == Scalar::f32) {
      // NaN decided on the bits: a compiler may assume no NaN and use ordered comparisons.
      cond = a.op.name == "ne" ? "is_nan(a) || is_nan(b) || " + cond : "!is_nan(a) && !is_nan(b) && " + cond;
      m.helpers.push_back("is_nan");
    }
  } else {
    cond = logic.at(a.op.name);
    m.title = a.op.name;
  }
  for (int k = 0; k < 2; ++k)
    if (a.in[k].shape == out) m.aligned.push_back(k);
  m.value_fn = "fn value(i: u32) -> u32 {\n  let a = ld_a(" + broadcast_index(a.in[0].shape, out, "i") + ");\n  let b = ld_b(" +
               broadcast_index(a.in[1].shape, out, "i") + ");\n  return select(0u, 1u, " + cond + ");\n}\n";
  return map_program(a, m, error);
}

// bit_shift on u8/u16/u32 (held in u32): WGSL takes a shift amount modulo 32, rung gives 0
// from the dtype's width on; the output's fit function drops the bits shifted past it.
std::optional<Program> emit_bit_shift(const KernelArgs& a, std::string& error) {
  const auto& out = a.out[0].shape;
  bool right = a.attrs.string("direction") == "right";
  std::string width = std::to_string(dtype_info(a.in[0].dtype).block_bytes * 8) + "u";
  MapSpec m;
  m.title = std::string("bit_shift ") + (right ? "right" : "left") + " (0 from a shift by the bit width on)";
  m.value_type = Scalar::u32;
  for (int k = 0; k < 2; ++k)
    if (a.in[k].shape == out) m.aligned.push_back(k);
  m.value_fn = "fn value(i: u32) -> u32 {\n  let a = ld_x(" + broadcast_index(a.in[0].shape, out, "i") + ");\n  let b = ld_y(" +
               broadcast_index(a.in[1].shape, out, "i") + ");\n  return select(0u, a " + (right ? ">>" : "<<") + " b, b < " + width +
               ");\n}\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_logical_not(const KernelArgs& a, std::string& error) {
  MapSpec m;
  m.title = "logical_not";
  m.value_type = Scalar::u32;
  m.aligned = {0};
  m.value_fn = "fn value(i: u32) -> u32 { return select(1u, 0u, ld_x(i) != 0u); }\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_where(const KernelArgs& a, std::string& error) {
  const auto& out = a.out[0].shape;
  Scalar s = scalar_of(a.out[0].dtype);
  MapSpec m;
  m.title = "where: the chosen element's bits";
  m.value_type = s;
  for (int k = 0; k < 3; ++k)
    if (a.in[k].shape == out) m.aligned.push_back(k);
  std::string t(wgsl_type(s));
  m.value_fn = "fn value(i: u32) -> " + t + " {\n  let c = ld_cond(" + broadcast_index(a.in[0].shape, out, "i") +
               ");\n  return select(ld_b(" + broadcast_index(a.in[2].shape, out, "i") + "), ld_a(" +
               broadcast_index(a.in[1].shape, out, "i") + "), c != 0u);\n}\n";
  return map_program(a, m, error);
}

std::optional<Program> emit_clamp(const KernelArgs& a, std::string& error) {
  MapSpec m;
  m.title = "clamp: minimum(maximum(x, min), max)";
  m.helpers = {"fmax", "fmin"};
  m.aligned = {0};
  m.value_fn = "fn value(i: u32) -> f32 { return fmin(fmax(ld_x(i), " + f32_lit(a.attrs.real("min")) + "), " +
               f32_lit(a.attrs.real("max")) + "); }\n";
  return map_program(a, m, error);
}

// Integer bounds as f32 for the saturating float -> int conversion.
struct IntRange {
  double lo, hi;
};
IntRange int_range(DType t) {
  switch (t) {
    case DType::i8: return {-128, 127};
    case DType::i16: return {-32768, 32767};
    case DType::i32: return {-2147483648.0, 2147483647.0};
    case DType::u8: return {0, 255};
    case DType::u16: return {0, 65535};
    default: return {0, 4294967295.0};
  }
}

std::optional<Program> emit_cast(const KernelArgs& a, std::string& error) {
  DType from = a.in[0].dtype, to = a.out[0].dtype;
  Scalar fs = scalar_of(from), ts = scalar_of(to);
  bool from_float = fs == Scalar::f32, from_bool = from == DType::boolean;
  if ((to == DType::i64 || to == DType::u64) && (from_float || from == DType::u32 || from == DType::u64)) {
    error = std::string(kDeviceLacks) + "cast to " + std::string(dtype_info(to).name) + " from " + std::string(dtype_info(from).name) +
            " needs 64-bit integers on the device (WGSL has none)";
    return std::nullopt;
  }
  MapSpec m;
  m.title = "cast " + std::string(dtype_info(from).name) + " -> " + std::string(dtype_info(to).name);
  m.aligned = {0};
  m.value_type = ts;
  std::string expr;
  if (to == DType::boolean) {
    expr = from_float ? "select(0u, 1u, (bitcast<u32>(v) & 0x7fffffffu) != 0u)" : "select(0u, 1u, v != " + std::string(fs == Scalar::i32 ? "0" : "0u") + ")";
  } else if (ts == Scalar::f32) {
    if (from_float) expr = "v";
    else if (from_bool) expr = "f32(v)";
    else if (fs == Scalar::i32)
      expr = "f32(v >> 16u) * 65536.0f + f32(v & 0xffff)";  // both parts exact: one rounding
    else
      expr = "f32(v >> 16u) * 65536.0f + f32(v & 0xffffu)";
  } else if (from_float) {
    m.helpers = {"f2i"};
    IntRange r = int_range(to == DType::i64 ? DType::i32 : to);
    if (ts == Scalar::i32)
      expr = "f2i(v, " + f32_lit(r.lo) + ", " + f32_lit(r.hi) + ", " + i32_lit(static_cast<std::int64_t>(r.lo)) + ", " +
             i32_lit(static_cast<std::int64_t>(r.hi)) + ")";
    else
      expr = "f2u(v, " + f32_lit(r.hi) + ", " + u32_lit(static_cast<std::uint64_t>(r.hi)) + ")";
  } else {
    // int -> int: two's complement wrap-around (the fit function narrows)
    expr = fs == ts ? "v" : "bitcast<" + std::string(wgsl_type(ts)) + ">(v)";
  }
  // A negative signed value cast to u64 is 2^64 + v: outside the 32 bits u64 has on the
  // device, so the kernel refuses it (A0010) rather than return 2^32 + v.
  bool signed_to_u64 = to == DType::u64 && fs == Scalar::i32;
  std::string check;
  if (signed_to_u64) {
    m.status_slot = static_cast<int>(a.in.size() + a.out.size());
    check = "  if (v < 0) { status[0] = 1u; }\n";
  }
  m.value_fn = "fn value(i: u32) -> " + std::string(wgsl_type(ts)) + " {\n  let v = ld_x(i);\n" + check + "  return " + expr + ";\n}\n";
  auto p = map_program(a, m, error);
  if (!p || !signed_to_u64) return p;
  p->scratch_words.push_back(1);
  p->can_fail = true;
  p->fail_code = "A0010";
  p->fail_message = "a negative value cast to u64 lies outside the 32 bits u64 has on the device";
  return p;
}

}  // namespace

void register_elementwise_emitters(std::map<std::string, EmitterEntry>& t) {
  for (const auto& [name, row] : unary_rows()) t[name] = {emit_unary, row.types};
  for (const auto& [name, row] : binary_rows()) t[name] = {emit_binary, row.types};
  // A comparison cannot wrap: 64-bit integers held in 32 bits (their upload checks the range)
  // compare exactly, so index and label tensors (i64 in every ONNX model) can be compared.
  for (const char* n : {"lt", "le", "gt", "ge"}) t[n] = {emit_compare, kNumeric32 | kWide};
  for (const char* n : {"eq", "ne"}) t[n] = {emit_compare, kNumeric32 | kWide | ops::kBool};  // bools held as 0u / 1u
  for (const char* n : {"logical_and", "logical_or", "logical_xor"}) t[n] = {emit_compare, ops::kBool};
  t["logical_not"] = {emit_logical_not, ops::kBool};
  t["bit_shift"] = {emit_bit_shift, DTypeSet{DType::u8, DType::u16, DType::u32}};
  t["where"] = {emit_where, ops::kBool};
  t["clamp"] = {emit_clamp, kFloat32Like};
  t["cast"] = {emit_cast, ops::kFloat32Like | ops::kInt | ops::kBool};
}

}  // namespace rung::webgpu
