#include "backends/webgpu/backend.h"

#include <unordered_map>

#include "backends/reference/interpreter.h"
#include "backends/webgpu/executor.h"
#include "backends/webgpu/memory_model.h"
#include "backends/webgpu/wgsl/generator.h"
#include "backends/webgpu/wgsl/module.h"
#include "base/hash.h"
#include "ir/graph/walk.h"
#include "ops/kernel_coverage.h"

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

class WebGpuBackend final : public runtime::OpBackend {
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

  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    std::vector<DevTensor> dev;
    for (const auto& t : inputs) {
      auto d = exec_.upload(t, diags);
      if (!d) return std::nullopt;
      dev.push_back(std::move(*d));
    }
    auto out = exec_.apply(op, dev, attrs, diags);
    if (!out) return std::nullopt;
    std::vector<ops::HostTensor> host;
    for (const auto& t : *out) {
      auto h = exec_.download(t, diags);
      if (!h) return std::nullopt;
      host.push_back(std::move(*h));
    }
    return host;
  }

  // Buffers stay on the device across the nodes of a region; only the results come back.
  std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                         DiagnosticSink& diags) override {
    std::vector<DevTensor> dargs;
    for (const auto& a : args) {
      auto d = exec_.upload(a, diags);
      if (!d) return std::nullopt;
      dargs.push_back(std::move(*d));
    }
    auto res = run_resident(g, region, dargs, args, diags, 0);
    if (!res) return std::nullopt;
    std::vector<ops::HostTensor> out;
    for (const auto& t : *res) {
      auto h = exec_.download(t, diags);
      if (!h) return std::nullopt;
      out.push_back(std::move(*h));
    }
    return out;
  }

 private:
  std::optional<std::vector<DevTensor>> run_resident(const Graph& g, RegionId rid, std::span<const DevTensor> args,
                                                     std::span<const ops::HostTensor> host_args, DiagnosticSink& diags, int depth) {
    const Region& r = g.region(rid);
    if (depth > 64) {
      diags.error("R0004", "calls nested more than 64 deep (in `" + r.name + "`)");
      return std::nullopt;
    }
    if (args.size() != r.params.size()) {
      diags.error("R0001", "`" + r.name + "` takes " + std::to_string(r.params.size()) + " arguments, " +
                               std::to_string(args.size()) + " were given");
      return std::nullopt;
    }
    reference::DimBindings bindings;
    std::unordered_map<NodeId, std::vector<DevTensor>> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Node& p = g.node(r.params[i]);
      if (!host_args.empty()) {
        std::string why = reference::fit_type(p.outputs[0], host_args[i], bindings);
        if (!why.empty()) {
          diags.error("R0002", "argument `" + p.attrs.at("name").as<std::string>() + "` of `" + r.name + "` " + why);
          return std::nullopt;
        }
      }
      values[r.params[i]] = {args[i]};
    }
    std::vector<NodeId> order = nodes_in_region(g, r);
    std::unordered_map<NodeId, std::size_t> uses;
    for (NodeId n : order)
      for (const auto& in : g.node(n).inputs) ++uses[in.node];
    for (const auto& v : r.results) ++uses[v.node];
    for (NodeId n : order) {
      if (values.count(n)) continue;
      const Node& node = g.node(n);
      std::vector<DevTensor> inputs;
      for (const auto& in : node.inputs) inputs.push_back(values.at(in.node).at(in.output));
      std::optional<std::vector<DevTensor>> out;
      std::size_t before = diags.all().size();
      if (node.opcode == opcode::kConst) {
        const TensorType& t = node.outputs[0];
        std::vector<std::uint64_t> ext;
        for (const auto& d : t.shape) ext.push_back(d.extent());
        const Bytes& b = node.attrs.at("value").as<Bytes>();
        ops::HostTensor h(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end()));
        auto d = exec_.upload(h, diags);
        if (d) out = std::vector<DevTensor>{std::move(*d)};
      } else if (node.opcode == opcode::kCall) {
        RegionId callee = *g.find_region(node.attrs.at("callee").as<Hash256>());
        out = run_resident(g, callee, inputs, {}, diags, depth + 1);
      } else {
        const ops::OpDef* def = ops::op_registry().find(node.opcode);
        if (!def) {
          diags.error("N0010", "unknown op `" + node.opcode + "`");
          return std::nullopt;
        }
        out = exec_.apply(*def, inputs, node.attrs, diags);
      }
      if (!out) {
        if (diags.all().size() > before) diags.last().note("while evaluating " + describe_node(g, n) + " in `" + r.name + "`");
        return std::nullopt;
      }
      values[n] = std::move(*out);
      for (const auto& in : node.inputs)
        if (--uses[in.node] == 0) values.erase(in.node);
    }
    std::vector<DevTensor> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    return results;
  }

  ops::Tier tier_;
  std::unique_ptr<Device> dev_;
  Executor exec_;
};

}  // namespace

std::unique_ptr<runtime::OpBackend> make_webgpu_backend(ops::Tier tier, DiagnosticSink& diags, const BackendOptions& o) {
  register_webgpu_kernels(ops::op_registry());
  auto dev = Device::open(diags, o.device);
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
         [](ops::Tier t, DiagnosticSink& d) { return webgpu::make_webgpu_backend(t, d); }});
}

}  // namespace rung::runtime
