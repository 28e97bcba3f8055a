#include "ops/evaluate.h"

#include "ops/fp_env.h"
#include "ops/typing.h"

namespace rung::ops {

std::optional<std::vector<HostTensor>> evaluate(const OpDef& op, std::span<const HostTensor> inputs,
                                                const AttrMap& attrs, DiagnosticSink& diags,
                                                const EvalOptions& options) {
  if (options.tier == Tier::debug && !check_fp_env_for_exact(diags)) return std::nullopt;
  std::vector<TensorType> types;
  for (const auto& t : inputs) types.push_back(t.type());
  std::vector<std::string> errors;
  auto typed = infer_types(op, types, attrs, errors);
  if (!typed) {
    auto& d = diags.error("N0011", "`" + op.name + "` cannot be applied to these operands");
    for (auto& e : errors) d.note(e);
    d.note("signature: " + op.signature());
    return std::nullopt;
  }
  std::vector<HostTensor> outputs;
  for (const auto& rt : typed->results) {
    Extents ext;
    bool static_shape = true;
    for (const auto& d : rt.shape) {
      if (!d.is_static()) { static_shape = false; break; }
      ext.push_back(d.extent());
    }
    if (!static_shape) {
      // Data-dependent extent: the kernel allocates this output itself.
      outputs.emplace_back(rt.dtype, Extents{0});
      continue;
    }
    auto bytes = HostTensor::checked_bytes(rt.dtype, ext);
    if (!bytes || *bytes > (std::uint64_t{1} << 40)) {
      diags.error("N0013", "`" + op.name + "` would produce " + rt.to_string() + ", which is too large to evaluate");
      return std::nullopt;
    }
    outputs.emplace_back(rt.dtype, std::move(ext));
  }
  KernelContext ctx{inputs, outputs, typed->attrs, {}};
  op.reference(ctx);
  if (!ctx.error.empty()) {
    diags.error("N0012", "`" + op.name + "` refused its input: " + ctx.error);
    return std::nullopt;
  }
  for (auto& o : outputs) o.canonicalize_nans();
  return outputs;
}

std::optional<std::vector<HostTensor>> evaluate(std::string_view op, std::span<const HostTensor> inputs,
                                                const AttrMap& attrs, DiagnosticSink& diags,
                                                const EvalOptions& options) {
  const OpDef* def = op_registry().find(op);
  if (!def) {
    diags.error("N0010", "unknown op `" + std::string(op) + "`").note("`rung ops` lists every op");
    return std::nullopt;
  }
  return evaluate(*def, inputs, attrs, diags, options);
}

}  // namespace rung::ops
