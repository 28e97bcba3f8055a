// A deliberately broken backend for the harness tests: the reference, except that
//   - `add` gives one wrong bit in its first output element (a wrong kernel),
//   - `mul` has no kernel (a missing kernel),
//   - `sqrt` writes its NaNs with a non-canonical payload (a NaN-payload difference).
// The conformance harness must catch each of the three and pass everything else.
#pragma once

#include <cstring>

#include "runtime/backend_registry.h"

namespace rung::testing {

class BrokenBackend final : public runtime::OpBackend {
 public:
  ops::Backend id() const override { return ops::Backend::cpu; }
  ops::Tier tier() const override { return ops::Tier::debug; }
  runtime::DeviceProfile profile() const override { return {"cpu", "broken test backend", {{"purpose", "harness test"}}}; }
  const ops::KernelEntry* kernel(const ops::OpDef& op, DType dtype) const override {
    if (op.name == "mul") return nullptr;
    const ops::KernelEntry* k = ops::op_registry().kernel(op.id, ops::Backend::reference);
    return (k && (k->dtypes.contains(dtype) || k->dtypes.empty())) ? k : nullptr;
  }
  std::string kernel_hash(const ops::OpDef& op) const override { return "broken:" + op.name + ":" + std::to_string(version); }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    auto out = ops::evaluate(op, inputs, attrs, diags, {});
    if (!out) return out;
    ops::HostTensor& y = (*out)[0];
    if (op.name == "add" && y.numel() > 0 && !y.bytes().empty()) y.bytes()[0] ^= 1;
    if (op.name == "sqrt" && y.dtype() == DType::f32)
      for (std::uint64_t i = 0; i < y.numel(); ++i)
        if (y.load_f32(i) != y.load_f32(i)) y.set_raw<std::uint32_t>(i, 0x7fc00001u);
    return out;
  }
  int version = 1;
};

}  // namespace rung::testing
