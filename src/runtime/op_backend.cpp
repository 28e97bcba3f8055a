#include "runtime/op_backend.h"

#include "base/canonical.h"
#include "runtime/host_walk.h"

#include <set>

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

bool is_bit_copy_op(std::string_view op) {
  static const std::set<std::string_view> copies = {
      "reshape", "transpose", "broadcast_to", "expand_like", "slice", "concat", "pad", "gather", "embedding", "where",
      "zeros_like", "ones_like", "one_hot", "csr_to_dense", "csr_from_dense", "iota"};
  return copies.count(op) > 0;
}

static bool may_produce_float(const ops::OpDef& op) {
  for (const auto& r : op.results) {
    if (r.type.rfind("attr:", 0) == 0) return true;  // cast: the dtype is an attribute
    for (const auto& tv : op.type_vars)
      if (tv.name == r.type)
        for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64})
          if (tv.allowed.contains(t)) return true;
    if (auto t = dtype_from_name(r.type); t && dtype_info(*t).is_float) return true;
  }
  return false;
}

ops::TolClass convergent_class(const ops::OpDef& op) {
  ops::TolClass c = op.tolerance.prod;
  if (c == ops::TolClass::exact && may_produce_float(op) && !is_bit_copy_op(op.name)) c = ops::TolClass::tight;
  return c;
}

ops::TolClass OpBackend::agreement_class(const ops::OpDef& op, ops::Tier tier) const {
  return exact_capable() ? op.tolerance.in(tier) : convergent_class(op);
}

const ops::KernelEntry* OpBackend::kernel(const ops::OpDef& op, DType dtype) const {
  const ops::KernelEntry* k = ops::op_registry().kernel(op.id, id());
  if (!k || !k->dtypes.contains(dtype)) return nullptr;
  return k;
}

std::optional<std::vector<ops::HostTensor>> OpBackend::run_region(const Graph& g, RegionId region,
                                                                  std::span<const ops::HostTensor> args,
                                                                  DiagnosticSink& diags) {
  WalkOptions o;
  o.tier = tier();
  o.evaluate = [this](const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs,
                      DiagnosticSink& d) { return run_op(op, inputs, attrs, d); };
  return walk_region(g, region, args, diags, o);
}

}  // namespace rung::runtime
