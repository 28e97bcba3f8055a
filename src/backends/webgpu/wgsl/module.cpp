#include "backends/webgpu/wgsl/module.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstring>

#include "base/check.h"

namespace rung::webgpu {

Scalar scalar_of(DType t) {
  switch (t) {
    case DType::f32: case DType::f16: case DType::bf16: case DType::f64: return Scalar::f32;
    case DType::i8: case DType::i16: case DType::i32: case DType::i64: return Scalar::i32;
    default: return Scalar::u32;  // unsigned, bool, quantized bytes
  }
}

std::string_view wgsl_type(Scalar s) { return s == Scalar::f32 ? "f32" : s == Scalar::i32 ? "i32" : "u32"; }

bool device_representable(DType t) { return t != DType::f64; }

std::uint64_t device_words(DType t, const ops::Extents& shape) {
  std::uint64_t n = ops::element_count(shape);
  if (t == DType::q8_0 || t == DType::q4_0) {
    auto bytes = ops::HostTensor::checked_bytes(t, shape);
    return bytes ? (*bytes + 3) / 4 : 0;
  }
  return n;
}

std::string TensorDesc::to_string() const {
  return std::string(dtype_info(dtype).name) + ops::extents_to_string(shape);
}

std::string u32_lit(std::uint64_t v) { return std::to_string(v) + "u"; }
std::string i32_lit(std::int64_t v) {
  if (v == INT32_MIN) return "i32(-2147483647 - 1)";
  return "i32(" + std::to_string(v) + ")";
}

std::string f32_lit(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(f)) return "qnan()";
  if (std::isinf(f)) return f > 0 ? "pinf()" : "ninf()";
  // Subnormal literals and -0 spell their bits: a literal `-0.0f` is a negated +0 that the
  // shader compiler may fold to +0 (SwiftShader does: pad with value -0 wrote +0).
  if ((f != 0 && std::fabs(f) < 1.17549435e-38f) || (f == 0 && std::signbit(f))) {
    char b[48];
    std::snprintf(b, sizeof b, "bitcast<f32>(0x%08xu)", std::bit_cast<std::uint32_t>(f));
    return b;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

Dispatch grid_for(std::uint64_t invocations, std::uint32_t wg, const DeviceCaps& caps) {
  std::uint64_t groups = (invocations + wg - 1) / wg;
  if (groups == 0) return {0, 1, 1};
  std::uint64_t x = std::min<std::uint64_t>(groups, caps.max_workgroups);
  std::uint64_t y = (groups + x - 1) / x;
  RUNG_CHECK(y <= caps.max_workgroups, "a grid beyond max_workgroups^2 invocations");
  return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1};
}

std::vector<std::uint64_t> row_major_strides(const ops::Extents& shape) {
  std::vector<std::uint64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

std::string broadcast_index(const ops::Extents& in, const ops::Extents& out, const std::string& i) {
  if (in == out) return i;
  if (ops::element_count(in) == 1) return "0u";
  auto os = row_major_strides(out);
  auto is = row_major_strides(in);
  std::string e;
  std::size_t off = out.size() - in.size();
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) continue;
    std::string coord = "((" + i + " / " + u32_lit(os[d + off]) + ") % " + u32_lit(out[d + off]) + ")";
    e += (e.empty() ? "" : " + ") + coord + (is[d] == 1 ? "" : " * " + u32_lit(is[d]));
  }
  return e.empty() ? "0u" : e;
}

std::string fit_function(Module& m, DType t) {
  switch (t) {
    case DType::f32: m.use("fit_f32"); return "fit_f32";
    case DType::f16: m.use("fit_f16"); return "fit_f16";
    case DType::bf16: m.use("fit_bf16"); return "fit_bf16";
    case DType::i8: m.use("fit_i8"); return "fit_i8";
    case DType::i16: m.use("fit_i16"); return "fit_i16";
    case DType::u8: m.use("fit_u8"); return "fit_u8";
    case DType::u16: m.use("fit_u16"); return "fit_u16";
    case DType::boolean: m.use("fit_bool"); return "fit_bool";
    case DType::i32: case DType::i64: m.use("fit_i32"); return "fit_i32";
    default: m.use("fit_u32"); return "fit_u32";
  }
}

Module::Module(const KernelArgs& a, std::string title) : a_(a), title_(std::move(title)) {}

std::string Module::bind(int slot, std::string name, Scalar s, bool writable, std::string what, Binding window) {
  std::size_t index = slots_.size();
  window.slot = slot;
  slots_.push_back(window);
  binding_names_.push_back(name);
  bindings_.push_back("@group(0) @binding(" + std::to_string(index) + ") var<storage, " +
                      (writable ? "read_write" : "read") + "> " + name + ": array<" + std::string(wgsl_type(s)) +
                      ">;  // " + what);
  return name;
}

void Module::constant(const std::string& name, std::uint64_t value) {
  RUNG_CHECK(value <= 0xffffffffull, "a WGSL u32 constant out of range");
  constants_.push_back("const " + name + ": u32 = " + u32_lit(value) + ";");
}

void Module::constant_f32(const std::string& name, double value) {
  constants_.push_back("const " + name + ": f32 = " + f32_lit(value) + ";");
}

void Module::use(const std::string& helper) {
  if (helper_set_.count(helper)) return;
  const LibraryFunction* f = library_function(helper);
  RUNG_CHECK(f != nullptr, "unknown WGSL library function");
  for (const auto& d : f->deps) use(d);
  helper_set_.insert(helper);
  helpers_.push_back(f->text);
}

void Module::code(const std::string& text) { code_.push_back(text); }
void Module::comment(const std::string& text) { comments_.push_back(text); }

Step Module::finish(const std::string& body, std::uint32_t workgroup_size, Dispatch groups) {
  std::string s = "// rung WebGPU kernel: " + a_.op.name + " — " + title_ + "\n";
  s += "// op: " + a_.op.signature() + "\n";
  for (std::size_t i = 0; i < a_.in.size(); ++i)
    s += "// input  " + a_.op.operands[std::min(i, a_.op.operands.size() - 1)].name + ": " + a_.in[i].to_string() + "\n";
  for (std::size_t i = 0; i < a_.out.size(); ++i) s += "// output " + a_.op.results[i].name + ": " + a_.out[i].to_string() + "\n";
  for (const auto& [k, v] : a_.attrs.map()) s += "// attr   " + k + " = " + v.to_string() + "\n";
  for (const auto& c : comments_) s += "// " + c + "\n";
  s += "// Fixed evaluation order, no atomics: the same device gives the same bits run to run.\n\n";
  for (const auto& b : bindings_) s += b + "\n";
  if (!constants_.empty()) s += "\n";
  for (const auto& c : constants_) s += c + "\n";
  // WGSL constant evaluation rejects NaN and infinities, so kernels name them through
  // functions of private variables (evaluated at run time).
  auto specials = [](std::string t) {
    const std::pair<const char*, const char*> names[] = {
        {"bitcast<f32>(0x7fc00000u)", "qnan()"}, {"bitcast<f32>(0x7f800000u)", "pinf()"}, {"bitcast<f32>(0xff800000u)", "ninf()"}};
    for (const auto& [from, to] : names)
      for (auto at = t.find(from); at != std::string::npos; at = t.find(from, at)) t.replace(at, std::strlen(from), to);
    return t;
  };
  std::string helpers_and_code;
  for (const auto& h : helpers_) helpers_and_code += "\n" + h;
  for (const auto& c : code_) helpers_and_code += "\n" + c;
  helpers_and_code = specials(helpers_and_code);
  std::string fixed_body = specials(body);
  if (!a_.caps.fused_fma) {
    // Route every fma through fma_x (this device's fma is not fused).
    auto route = [](std::string t) {
      for (std::size_t at = t.find("fma("); at != std::string::npos; at = t.find("fma(", at + 1)) {
        char prev = at ? t[at - 1] : ' ';
        if (std::isalnum(static_cast<unsigned char>(prev)) || prev == '_') continue;
        t.replace(at, 4, "fma_x(");
      }
      return t;
    };
    std::string before = helpers_and_code + fixed_body;
    helpers_and_code = route(helpers_and_code);
    fixed_body = route(fixed_body);
    if (helpers_and_code + fixed_body != before && !helper_set_.count("fma_x"))
      helpers_and_code = "\n" + library_function("fma_x")->text + helpers_and_code;
  }
  std::string all = helpers_and_code + fixed_body;
  if (all.find("qnan()") != std::string::npos || all.find("pinf()") != std::string::npos || all.find("ninf()") != std::string::npos)
    s += "\n// IEEE specials (not constants: WGSL constant evaluation has no NaN or infinity).\n"
         "var<private> BITS_QNAN: u32 = 0x7fc00000u;\nvar<private> BITS_PINF: u32 = 0x7f800000u;\n"
         "var<private> BITS_NINF: u32 = 0xff800000u;\nfn qnan() -> f32 { return bitcast<f32>(BITS_QNAN); }\n"
         "fn pinf() -> f32 { return bitcast<f32>(BITS_PINF); }\nfn ninf() -> f32 { return bitcast<f32>(BITS_NINF); }\n";
  s += helpers_and_code;
  s += "\n@compute @workgroup_size(" + std::to_string(workgroup_size) + ")\n";
  s += "fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u,\n"
       "        @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {\n";
  // Every binding is used statically, so the layout derived from the shader has all of them.
  for (const auto& n : binding_names_) s += "  _ = arrayLength(&" + n + ");\n";
  s += fixed_body;
  if (!fixed_body.empty() && fixed_body.back() != '\n') s += "\n";
  s += "}\n";
  return Step{title_, std::move(s), slots_, groups};
}

}  // namespace rung::webgpu
