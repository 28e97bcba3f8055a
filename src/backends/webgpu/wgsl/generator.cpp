#include "backends/webgpu/wgsl/generator.h"

namespace rung::webgpu {

const std::map<std::string, EmitterEntry>& emitters() {
  static const std::map<std::string, EmitterEntry> table = [] {
    std::map<std::string, EmitterEntry> t;
    register_elementwise_emitters(t);
    register_shape_emitters(t);
    register_reduce_emitters(t);
    register_linalg_emitters(t);
    register_nn_emitters(t);
    register_conv_emitters(t);
    register_misc_emitters(t);
    register_scatter_quant_emitters(t);
    register_random_emitters(t);
    register_csr_build_emitters(t);
    return t;
  }();
  return table;
}

std::optional<Program> generate(const KernelArgs& a, std::string& error) {
  auto it = emitters().find(a.op.name);
  if (it == emitters().end()) {
    error = "no WGSL emitter for `" + a.op.name + "`";
    return std::nullopt;
  }
  for (const auto& t : a.in)
    if (!device_representable(t.dtype)) {
      error = std::string(kDeviceLacks) + std::string(dtype_info(t.dtype).name) + " has no WGSL type (WebGPU has no binary64)";
      return std::nullopt;
    }
  for (const auto& t : a.out)
    if (!device_representable(t.dtype)) {
      error = std::string(kDeviceLacks) + std::string(dtype_info(t.dtype).name) + " has no WGSL type (WebGPU has no binary64)";
      return std::nullopt;
    }
  // An emitter runs only for the dtypes it declares (of the op's first operand, when that is
  // of the first type variable): what conformance checks and `rung ops --missing webgpu`
  // lists. Another dtype is refused here, never run unverified.
  const ops::OpDef& op = a.op;
  bool first_is_var0 = !op.operands.empty() && !op.type_vars.empty() && op.operands[0].type == op.type_vars[0].name;
  if (first_is_var0 && !a.in.empty() && !it->second.dtypes.contains(a.in[0].dtype)) {
    error = "no WGSL kernel for `" + op.name + "` on " + std::string(dtype_info(a.in[0].dtype).name);
    return std::nullopt;
  }
  return it->second.emit(a, error);
}

std::string program_text(const Program& p) {
  std::string s;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const Step& st = p.steps[i];
    s += "// ===== dispatch " + std::to_string(i + 1) + " of " + std::to_string(p.steps.size()) + ": " + st.title +
         " — workgroups " + std::to_string(st.groups.x) + "x" + std::to_string(st.groups.y) + "x" +
         std::to_string(st.groups.z) + " =====\n";
    s += st.wgsl;
    if (i + 1 < p.steps.size()) s += "\n";
  }
  if (p.count_slot >= 0)
    s += "// ===== then: the count (word " + std::to_string(p.count_word) +
         " of the result above) is read back, the outputs sized by it are allocated, and a second program fills them "
         "(generated for that count) =====\n";
  return s;
}

}  // namespace rung::webgpu
