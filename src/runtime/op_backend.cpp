#include "runtime/op_backend.h"

#include "backends/reference/interpreter.h"
#include "base/canonical.h"

namespace rung::runtime {

Hash256 DeviceProfile::hash() const {
  CanonicalWriter w;
  w.raw(std::string_view("rung.device_profile.v1"));
  w.str(backend);
  w.str(device);
  w.u64(facts.size());
  for (const auto& [k, v] : facts) {
    w.str(k);
    w.str(v);
  }
  return sha3_256(w.data());
}

std::string DeviceProfile::to_string() const {
  std::string s = backend + ": " + device;
  if (!facts.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [k, v] : facts) {
      s += (first ? "" : ", ") + k + "=" + v;
      first = false;
    }
    s += ")";
  }
  return s;
}

const ops::KernelEntry* OpBackend::kernel(const ops::OpDef& op, DType dtype) const {
  const ops::KernelEntry* k = ops::op_registry().kernel(op.id, id());
  if (!k || !k->dtypes.contains(dtype)) return nullptr;
  return k;
}

std::optional<std::vector<ops::HostTensor>> OpBackend::run_region(const Graph& g, RegionId region,
                                                                  std::span<const ops::HostTensor> args,
                                                                  DiagnosticSink& diags) {
  reference::RunOptions o;
  o.tier = tier();
  o.evaluate = [this](const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs,
                      DiagnosticSink& d) { return run_op(op, inputs, attrs, d); };
  return reference::run_region(g, region, args, diags, o);
}

}  // namespace rung::runtime
