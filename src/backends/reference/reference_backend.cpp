#include "backends/reference/reference_backend.h"

#include "ops/evaluate.h"
#include "runtime/host_walk.h"

namespace rung::reference {

namespace {

// run_region is the contract's default: the host walk with run_op for each node.
class ReferenceBackend final : public runtime::OpBackend {
 public:
  explicit ReferenceBackend(ops::Tier t) : tier_(t) {}
  ops::Backend id() const override { return ops::Backend::reference; }
  ops::Tier tier() const override { return tier_; }
  runtime::DeviceProfile profile() const override { return {"reference", "scalar reference kernels", {}}; }
  std::string kernel_hash(const ops::OpDef& op) const override { return "reference:" + op.name; }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    ops::EvalOptions eo;
    eo.tier = tier_;
    return ops::evaluate(op, inputs, attrs, diags, eo);
  }

 private:
  ops::Tier tier_;
};

}  // namespace

std::unique_ptr<runtime::OpBackend> make_backend(ops::Tier tier) { return std::make_unique<ReferenceBackend>(tier); }

std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                       DiagnosticSink& diags, ops::Tier tier) {
  runtime::WalkOptions o;
  o.tier = tier;
  return runtime::walk_region(g, region, args, diags, o);
}

}  // namespace rung::reference

namespace rung::runtime {

void register_reference_backend(BackendRegistry& r) {
  r.add({"reference", "scalar reference kernels: the oracle every backend is compared with",
         [](ops::Tier t, DiagnosticSink&, const BackendSettings&) { return reference::make_backend(t); }});
}

}  // namespace rung::runtime
