// The registries as values (rung/registry.h): ops with their kernels and gradient rules,
// the tolerance table, the device probes, the passes.
#include "rung/registry.h"

#include <algorithm>

#include "api/impl.h"
#include "autodiff/gradient_rule.h"
#include "backends/wasm/emit_ops.h"
#include "ops/kernel_coverage.h"
#include "ops/registry.h"
#include "ops/tolerance.h"
#include "passes/pass.h"
#include "runtime/backend_registry.h"
#include "runtime/device_probe.h"

namespace rung {

namespace {

std::string presence_name(ops::AttrPresence p) {
  return p == ops::AttrPresence::required ? "required" : p == ops::AttrPresence::optional ? "optional" : "default";
}

OpInfo op_info(const ops::OpRegistry& r, const ops::OpDef& d) {
  OpInfo o;
  o.name = d.name;
  o.id = d.id.value;
  o.family = d.family;
  o.summary = d.summary;
  o.signature = d.signature();
  for (const auto& t : d.type_vars) o.type_vars[t.name] = t.allowed.to_string();
  for (const auto& x : d.operands)
    o.operands.push_back({x.name, x.type, x.arity == ops::Arity::one ? "one" : x.arity == ops::Arity::optional ? "optional" : "variadic"});
  for (const auto& x : d.results) o.results.push_back({x.name, x.type});
  for (const auto& a : d.attrs) {
    OpAttribute at{a.name, std::string(attr_kind_name(a.kind)), presence_name(a.presence), a.doc, std::nullopt, a.choices};
    if (a.default_value) at.default_value = a.default_value->to_string();
    o.attributes.push_back(std::move(at));
  }
  o.tolerance_debug = ops::tol_class_name(d.tolerance.debug);
  o.tolerance_prod = ops::tol_class_name(d.tolerance.prod);
  o.tolerance_fast = ops::tol_class_name(d.tolerance.fast);
  for (ops::Backend b : r.backends_with_kernel(d.id)) o.backends.emplace_back(ops::backend_name(b));
  o.gradient = !d.gradient ? "none" : d.gradient->differentiable() ? "rule" : "not differentiable: " + d.gradient->not_differentiable;
  return o;
}

}  // namespace

Result<OpList> list_ops(const OpsOptions& options) {
  runtime::backend_registry();        // every backend in this build registers its kernels
  autodiff::ensure_gradient_rules();  // and the autodiff layer its gradient rules
  const ops::OpRegistry& r = ops::op_registry();
  std::vector<const ops::OpDef*> defs = r.all();
  OpList out;
  if (!options.missing.empty()) {
    auto b = ops::backend_from_name(options.missing);
    if (!b) return api::fail<OpList>("C0210", "unknown backend `" + options.missing + "`", {"backends: reference, cpu, cuda, webgpu, wasm"});
    defs = r.missing_kernels(*b);
    // The wasm backend's kernels are those of `rung build --target wasm` (f32; the generator's
    // table, src/backends/wasm/emit_ops.cpp), not registry entries.
    if (*b == ops::Backend::wasm)
      std::erase_if(defs, [](const ops::OpDef* d) {
        const auto& have = wasm::supported_opcodes();
        return std::binary_search(have.begin(), have.end(), d->name);
      });
    // Ops whose kernel exists but does not cover every dtype the op accepts: each with the
    // dtypes it lacks (the kernel entry's declaration, which conformance and runs go by).
    for (const ops::OpDef* d : r.all())
      if (auto lacking = ops::missing_dtypes(r, *d, *b); !lacking.empty()) {
        OpDtypes m{d->name, {}};
        for (DType t : lacking) m.dtypes.emplace_back(dtype_name(t));
        out.missing_dtypes.push_back(std::move(m));
      }
  }
  for (const ops::OpDef* d : defs) out.ops.push_back(op_info(r, *d));
  return out;
}

std::vector<ToleranceEntry> tolerances() {
  std::vector<ToleranceEntry> out;
  for (const auto& row : ops::tolerance_table())
    out.push_back({std::string(ops::tier_name(row.tier)), std::string(ops::tol_class_name(row.cls)), std::string(dtype_name(row.dtype)),
                   row.t.bitwise, row.t.max_ulp, row.t.atol, row.t.rtol, row.t.normwise});
  return out;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (const auto& d : runtime::device_registry().probe_all())
    out.push_back({d.kind, d.name, d.compute_units, d.memory_bytes, d.available_bytes, d.facts, d.to_string()});
  return out;
}

PassList pass_list() {
  PassList out;
  for (const auto& p : all_passes()) out.passes.push_back({std::string(p->name()), std::string(p->summary())});
  out.default_pipeline = default_pipeline();
  return out;
}

}  // namespace rung
