// The CUDA backend as a runtime::OpBackend: `run_op` uploads, runs one device kernel and
// downloads; `run_region` keeps every intermediate on the device and transfers only the
// region's arguments, constants and results.
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include <cuda_runtime.h>

#include "backends/cuda/cuda_context.h"
#include "backends/cuda/cuda_fused.h"
#include "base/check.h"
#include "base/hash.h"
#include "ir/graph/walk.h"
#include "runtime/backend_registry.h"

#ifndef RUNG_CUDA_KERNEL_SOURCE_HASH
#error "RUNG_CUDA_KERNEL_SOURCE_HASH is set by src/backends/cuda/CMakeLists.txt (receipts name the kernel sources)"
#endif

namespace rung::cuda {

namespace {

// Checks a device value against a declared type, binding symbolic dims on first sight.
std::string fit(const TensorType& declared, const DevTensor& v, std::map<std::string, std::uint64_t>& bindings) {
  if (declared.dtype != v.dtype)
    return "has dtype " + std::string(dtype_name(v.dtype)) + ", expected " + std::string(dtype_name(declared.dtype));
  if (declared.rank() != v.shape.size())
    return "has shape " + ops::extents_to_string(v.shape) + ", expected " + declared.to_string();
  for (std::size_t i = 0; i < declared.rank(); ++i) {
    const Dim& d = declared.shape[i];
    if (d.is_static()) {
      if (d.extent() != v.shape[i]) return "has shape " + ops::extents_to_string(v.shape) + ", expected " + declared.to_string();
    } else if (auto [it, ins] = bindings.emplace(d.name(), v.shape[i]); !ins && it->second != v.shape[i]) {
      return "has extent " + std::to_string(v.shape[i]) + " in dimension " + std::to_string(i) + ", but " + d.name() + " = " +
             std::to_string(it->second) + " already";
    }
  }
  return {};
}

class CudaBackend final : public runtime::OpBackend {
 public:
  explicit CudaBackend(std::unique_ptr<Context> ctx) : ctx_(std::move(ctx)) {
    const char* f = std::getenv("RUNG_CUDA_FUSION");
    if (f && std::strcmp(f, "off") == 0) ctx_->fuse_elementwise = false;
  }

  ops::Backend id() const override { return ops::Backend::cuda; }
  ops::Tier tier() const override { return ctx_->tier(); }
  runtime::DeviceProfile profile() const override { return ctx_->profile(); }
  std::optional<runtime::TransferCounts> transfers() const override {
    return runtime::TransferCounts{ctx_->bytes_up, ctx_->bytes_down, ctx_->uploads, ctx_->downloads};
  }

  std::map<std::string, std::string> generated_kernels() const override { return ctx_->fused_kernels; }

  std::string kernel_hash(const ops::OpDef& op) const override {
    if (!find_dev_kernel(op.name)) return {};
    return sha3_256(std::string("rung.cuda.kernel.v1/") + op.name + "/" + RUNG_CUDA_KERNEL_SOURCE_HASH).hex();
  }

  // For the planner's verdict without --budget: the device memory free now (after this
  // context and cuBLAS took theirs), else the total the probe read.
  std::optional<std::uint64_t> device_memory_bytes() const override {
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && free_bytes > 0) return free_bytes;
    cudaGetLastError();  // clear the failed query's error
    auto facts = ctx_->profile().facts;
    auto it = facts.find("memory_bytes");
    if (it == facts.end()) return std::nullopt;
    try {
      return std::stoull(it->second);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    std::vector<DevTensor> dev;
    for (const auto& h : inputs) {
      auto t = ctx_->upload(h, diags);
      if (!t) return std::nullopt;
      dev.push_back(std::move(*t));
    }
    auto out = run_dev(*ctx_, op, dev, attrs, diags);
    if (!out) return std::nullopt;
    std::vector<ops::HostTensor> res;
    for (const auto& t : *out) {
      auto h = ctx_->download(t, diags);
      if (!h) return std::nullopt;
      res.push_back(std::move(*h));
    }
    return res;
  }

  std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                         DiagnosticSink& diags) override {
    std::vector<DevTensor> dev;
    for (const auto& h : args) {
      auto t = ctx_->upload(h, diags);
      if (!t) return std::nullopt;
      dev.push_back(std::move(*t));
    }
    auto out = run_region_dev(g, region, dev, diags, 0);
    if (!out) return std::nullopt;
    std::vector<ops::HostTensor> res;
    for (const auto& t : *out) {
      auto h = ctx_->download(t, diags);
      if (!h) return std::nullopt;
      res.push_back(std::move(*h));
    }
    return res;
  }

  // The reference interpreter's walk (backends/reference/interpreter.cpp) over device values.
  std::optional<std::vector<DevTensor>> run_region_dev(const Graph& g, RegionId rid, std::span<const DevTensor> args,
                                                       DiagnosticSink& diags, int depth) {
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
    std::map<std::string, std::uint64_t> bindings;
    std::unordered_map<NodeId, std::vector<DevTensor>> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Node& p = g.node(r.params[i]);
      std::string why = fit(p.outputs[0], args[i], bindings);
      if (!why.empty()) {
        diags.error("R0002", "argument `" + p.attrs.at("name").as<std::string>() + "` of `" + r.name + "` " + why);
        return std::nullopt;
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
        ops::Extents ext;
        for (const auto& d : t.shape) ext.push_back(d.extent());
        const Bytes& b = node.attrs.at("value").as<Bytes>();
        auto dv = ctx_->upload(ops::HostTensor(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end())), diags);
        if (!dv) return std::nullopt;
        out.emplace();
        out->push_back(std::move(*dv));
      } else if (node.opcode == opcode::kCall) {
        RegionId callee = *g.find_region(node.attrs.at("callee").as<Hash256>());
        out = run_call(g, node, callee, inputs, diags, depth);
      } else {
        const ops::OpDef* def = ops::op_registry().find(node.opcode);
        if (!def) {
          diags.error("N0010", "unknown op `" + node.opcode + "`");
          return std::nullopt;
        }
        out = run_dev(*ctx_, *def, inputs, node.attrs, diags);
      }
      if (!out) {
        if (diags.all().size() > before) diags.last().note("while evaluating " + describe_node(g, n) + " in `" + r.name + "`");
        return std::nullopt;
      }
      if (out->size() != node.outputs.size()) {
        diags.error("R0003", describe_node(g, n) + " produced " + std::to_string(out->size()) + " results, its type declares " +
                                 std::to_string(node.outputs.size()));
        return std::nullopt;
      }
      for (std::size_t i = 0; i < out->size(); ++i) {
        std::string why = fit(node.outputs[i], (*out)[i], bindings);
        if (!why.empty()) {
          diags.error("R0003", describe_node(g, n) + " result " + std::to_string(i) + " " + why);
          return std::nullopt;
        }
      }
      values[n] = std::move(*out);
      for (const auto& in : node.inputs)
        if (--uses[in.node] == 0) values.erase(in.node);
    }
    std::vector<DevTensor> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    if (!ctx_->sync(diags)) return std::nullopt;  // a failed kernel surfaces here, before any result is used
    return results;
  }

  // A call: a fused elementwise region as one generated kernel where the generator handles
  // it, else (and for every other call) the callee's walk. The detour is recorded: counted,
  // kept per region in the Context, and warned about once per region (U0005).
  std::optional<std::vector<DevTensor>> run_call(const Graph& g, const Node& call, RegionId callee,
                                                 std::span<const DevTensor> inputs, DiagnosticSink& diags, int depth) {
    if (is_fused_elementwise(call)) {
      const Region& r = g.region(callee);
      std::string why = "fusion is off (RUNG_CUDA_FUSION=off)";
      if (ctx_->fuse_elementwise) {
        std::vector<DevTensor> out;
        switch (run_fused_call(*ctx_, g, r, inputs, out, why, diags)) {
          case FusedOutcome::ran: return out;
          case FusedOutcome::failed: return std::nullopt;
          case FusedOutcome::op_by_op: break;
        }
      }
      ++ctx_->fused_op_by_op;
      auto [it, fresh] = ctx_->fused_kernels.insert_or_assign(r.name, "op by op: " + why);
      if (fresh && ctx_->fuse_elementwise)
        diags.warning("U0005", "the fused elementwise region `" + r.name + "` runs op by op on cuda: " + why);
      (void)it;
    }
    return run_region_dev(g, callee, inputs, diags, depth + 1);
  }

  Context& context() { return *ctx_; }

 private:
  std::unique_ptr<Context> ctx_;
};

// Kernel entries in the op registry, so `missing_kernels(cuda)` answers truthfully.
void register_kernels() {
  static bool done = [] {
    auto& reg = ops::op_registry();
    for (const ops::OpDef* op : reg.all()) {
      const DevKernel* k = find_dev_kernel(op->name);
      if (!k) continue;
      ops::DTypeSet all;
      for (const auto& tv : op->type_vars) all = all | tv.allowed;
      if (all == ops::DTypeSet{}) all = ops::kPlain;  // operands of fixed dtypes only
      reg.register_kernel(op->id, ops::Backend::cuda, ops::KernelEntry{"cuda." + op->name, k, all, true});
    }
    return true;
  }();
  (void)done;
}

}  // namespace

std::unique_ptr<runtime::OpBackend> make_cuda_backend(ops::Tier tier, DiagnosticSink& diags) {
  register_kernels();
  auto ctx = Context::create(tier, diags);
  if (!ctx) return nullptr;
  return std::make_unique<CudaBackend>(std::move(ctx));
}

Context& context_of(runtime::OpBackend& backend) {
  auto* b = dynamic_cast<CudaBackend*>(&backend);
  RUNG_CHECK(b != nullptr, "context_of needs the backend make_cuda_backend made");
  return b->context();
}

std::optional<std::vector<DevTensor>> run_region_on_device(runtime::OpBackend& backend, const Graph& g, RegionId region,
                                                           std::span<const DevTensor> args, DiagnosticSink& diags) {
  auto* b = dynamic_cast<CudaBackend*>(&backend);
  RUNG_CHECK(b != nullptr, "run_region_on_device needs the backend make_cuda_backend made");
  return b->run_region_dev(g, region, args, diags, 0);
}

}  // namespace rung::cuda

namespace rung::runtime {

void register_cuda_backend(BackendRegistry& r) {
  rung::cuda::register_kernels();
  r.add({"cuda", "NVIDIA GPUs: exact kernels bit-identical to the reference in tier debug, cuBLAS tensor cores in tier fast",
         [](ops::Tier t, DiagnosticSink& d) { return rung::cuda::make_cuda_backend(t, d); }});
}

}  // namespace rung::runtime
