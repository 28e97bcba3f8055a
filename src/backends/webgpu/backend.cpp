#include "backends/webgpu/backend.h"

#include "backends/webgpu/executor.h"
#include "backends/webgpu/memory_model.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/module.h"
#include "base/hash.h"
#include "ir/graph/walk.h"
#include "ops/kernel_coverage.h"
#include "runtime/device_walk.h"

namespace rung::webgpu {

const std::map<std::string, std::pair<ops::TolClass, std::string>>& weaker_classes() {
  static const std::map<std::string, std::pair<ops::TolClass, std::string>> m = {
      {"rope", {ops::TolClass::default_,
                "a' = a cos - b sin cancels: a 1-ulp difference in rung's f32 sin/cos (the reference's are correctly "
                "rounded binary64 evaluations) becomes many ulps of a small result"}},
      {"log_softmax", {ops::TolClass::default_,
                       "y = (x - max) - log(sum): a 1-ulp difference in f32 exp/log (the reference's are correctly rounded "
                       "binary64 evaluations) is amplified by |log sum| / |y| where the two nearly cancel (6 ulp seen)"}},
      {"erf", {ops::TolClass::default_,
               "for |x| < 2 the series (2/sqrt(pi)) z e^(-z^2) sum c_n z^2n in f32: the rounded e^(-z^2), the f32 Horner sum "
               "and three products leave up to 5 ulp (seen at 16 cases on SwiftShader) where the reference rounds once from "
               "binary64"}},
      {"random_normal", {ops::TolClass::default_,
                         "mean + std z cancels where z is near -mean/std: a 1-ulp difference in z (f32 log and sin/cos of "
                         "Box-Muller here, the reference's correctly rounded binary64 evaluations) became 1024 ulp of a "
                         "result near 0 (mean 1, seen at 48 cases on SwiftShader)"}},
      {"gelu", {ops::TolClass::default_,
                "for x < -1.1 the result is 0.5 x e^(-x^2/2) CF(|x|/sqrt2): four rounded f32 factors, up to ~6 ulp where the "
                "reference rounds once from binary64"}},
  };
  return m;
}

ops::TolClass tolerance_class(const ops::OpDef& op, ops::Tier /*tier*/) {
  // Not exact-capable: the op's prod class in every tier (runtime::convergent_class).
  ops::TolClass c = runtime::convergent_class(op);
  if (auto it = weaker_classes().find(op.name); it != weaker_classes().end() && it->second.first > c) c = it->second.first;
  return c;
}

// The dtypes a kernel entry covers are those of the op's rows (its first type variable). The
// emitter's set describes the op's first operand; where that operand is not of the first type
// variable (where: a bool condition; CSR ops: index arrays), every row dtype the device can
// hold is covered.
static ops::DTypeSet row_coverage(const ops::OpDef& op, ops::DTypeSet emitter) {
  bool first_is_var0 = !op.operands.empty() && !op.type_vars.empty() && op.operands[0].type == op.type_vars[0].name;
  if (first_is_var0 || op.type_vars.empty()) return emitter;
  ops::DTypeSet held;
  for (DType t : ops::row_dtypes(op))
    if (device_representable(t)) held = held | ops::DTypeSet{t};
  return emitter | held;
}

void register_webgpu_kernels(ops::OpRegistry& r) {
  for (const auto& [name, e] : emitters()) {
    const ops::OpDef* op = r.find(name);
    if (!op) continue;
    // fn holds the emitter; `exact` is false: WGSL results agree within the class, not bitwise.
    r.register_kernel(op->id, ops::Backend::webgpu,
                      ops::KernelEntry{"wgsl:" + name, e.emit, row_coverage(*op, e.dtypes), false});
  }
}

namespace {

// run_op and run_region are the device walk (runtime/device_walk.h) over the Executor:
// buffers stay on the device across the nodes of a region; only the results come back.
class WebGpuBackend final : public runtime::DeviceBackend<DevTensor> {
 public:
  WebGpuBackend(ops::Tier t, std::unique_ptr<Device> d) : tier_(t), dev_(std::move(d)), exec_(*dev_) {}
  bool probe(DiagnosticSink& diags) { return exec_.probe_fused_fma(diags); }

  ops::Backend id() const override { return ops::Backend::webgpu; }
  ops::Tier tier() const override { return tier_; }

  // WGSL leaves division, fma fusion and subnormals to the device: agreement with the
  // reference is each op's tolerance class, never bits across devices.
  bool exact_capable() const override { return false; }
  ops::TolClass agreement_class(const ops::OpDef& op, ops::Tier tier) const override { return tolerance_class(op, tier); }
  bool flushes_subnormals() const override { return exec_.flushes_subnormals(); }
  std::string unsupported_dtype(DType t) const override {
    if (t == DType::f64) return "A0010 f64: WGSL has no binary64";
    if (t == DType::i64 || t == DType::u64)
      return "A0010 " + std::string(dtype_name(t)) + ": WGSL has no 64-bit integers (held in 32 bits where the kernel claims the dtype)";
    return {};
  }
  bool holds_dtype(DType t) const override { return device_representable(t); }
  bool is_capability_refusal(std::string_view code) const override { return code == "A0010"; }

  runtime::DeviceProfile profile() const override {
    const DeviceInfo& i = dev_->info();
    const api::Limits& l = dev_->limits();
    runtime::DeviceProfile p{"webgpu", i.adapter, {}};
    p.facts["api_backend"] = i.backend;
    p.facts["adapter_type"] = i.adapter_type;
    p.facts["vendor_id"] = std::to_string(i.vendor_id);
    p.facts["device_id"] = std::to_string(i.device_id);
    p.facts["description"] = i.description;
    p.facts["subgroup_size"] = std::to_string(i.subgroup_min) + "-" + std::to_string(i.subgroup_max);
    p.facts["max_storage_binding"] = std::to_string(l.maxStorageBufferBindingSize);
    p.facts["max_buffer"] = std::to_string(l.maxBufferSize);
    p.facts["max_workgroup_invocations"] = std::to_string(l.maxComputeInvocationsPerWorkgroup);
    p.facts["library"] = i.library;
    if (!i.icd.empty()) p.facts["vulkan_icd"] = i.icd;
    p.facts["bit_exact_across_devices"] = "no";
    p.facts["fma"] = exec_.fused_fma() ? "fused" : "emulated (fma_x: two-product + two-sum; this device rounds fma's product)";
    p.facts["subnormals"] = exec_.flushes_subnormals() ? "flushed to zero" : "kept";
    p.facts["reproducibility"] = "convergent (fixed order, bit-stable on this device)";
    return p;
  }

  std::string kernel_hash(const ops::OpDef& op) const override {
    if (!emitters().count(op.name)) return "";
    // The generator's source is the kernel's code: the whole shared WGSL library, the op's
    // emitter name and the class it is judged by (the emitted text for a given shape is
    // printed by `rung show`). v2: every library function, not a selection.
    std::string s = "rung.wgsl.v2/" + op.name + "/" + std::string(ops::tol_class_name(tolerance_class(op, tier_))) + "\n" +
                    library_text();
    return "wgsl:" + sha3_256(std::string_view(s)).hex();
  }

 private:
  // --- The device walk's hooks ---
  std::optional<DevTensor> upload(const ops::HostTensor& t, DiagnosticSink& diags) override { return exec_.upload(t, diags); }
  std::optional<ops::HostTensor> download(const DevTensor& t, DiagnosticSink& diags) override { return exec_.download(t, diags); }
  std::optional<std::vector<DevTensor>> dispatch(const ops::OpDef& op, std::span<const DevTensor> inputs, const AttrMap& attrs,
                                                 DiagnosticSink& diags) override {
    return exec_.apply(op, inputs, attrs, diags);
  }
  DType dtype_of(const DevTensor& t) const override { return t.desc.dtype; }
  std::span<const std::uint64_t> shape_of(const DevTensor& t) const override { return t.desc.shape; }

  ops::Tier tier_;
  std::unique_ptr<Device> dev_;
  Executor exec_;
};

}  // namespace

std::unique_ptr<runtime::OpBackend> make_webgpu_backend(ops::Tier tier, DiagnosticSink& diags, const runtime::BackendSettings& settings,
                                                        const BackendOptions& o) {
  register_webgpu_kernels(ops::op_registry());
  auto dev = Device::open(diags, settings, o.device);
  if (!dev) return nullptr;
  auto b = std::make_unique<WebGpuBackend>(tier, std::move(dev));
  if (!b->probe(diags)) return nullptr;
  return b;
}

}  // namespace rung::webgpu

namespace rung::runtime {

void register_webgpu_backend(BackendRegistry& r) {
  webgpu::register_webgpu_kernels(ops::op_registry());
  webgpu::register_webgpu_memory_model();
  r.add({"webgpu", "generated WGSL kernels on a WebGPU adapter through Dawn (fixed order; agreement = tolerance class)",
         [](ops::Tier t, DiagnosticSink& d, const BackendSettings& s) { return webgpu::make_webgpu_backend(t, d, s); }});
}

}  // namespace rung::runtime
