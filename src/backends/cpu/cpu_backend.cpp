#include "backends/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <fstream>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <hwy/highway.h>
#include <hwy/targets.h>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/fused_region.h"
#include "base/check.h"
#include "backends/cpu/simd.h"
#include "backends/cpu/source_hash.h"
#include "ops/fp_env.h"
#include "ops/numerics/portable.h"
#include "ops/typing.h"
#include "runtime/host_walk.h"

namespace rung::cpu {

namespace {
// Op ids whose CPU kernel overwrites its outputs (written once, under register_cpu_kernels'
// call_once, read afterwards).
std::vector<char>& overwriting_ops() {
  static std::vector<char> ops(1u << 16, 0);
  return ops;
}
}  // namespace

void add_kernel(ops::OpRegistry& r, std::string_view op_name, CpuKernel fn, Impl impl, Outputs outputs) {
  const ops::OpDef* d = r.find(op_name);
  RUNG_CHECK(d != nullptr, "a CPU kernel for an op the registry does not know");
  ops::DTypeSet all;
  for (const auto& tv : d->type_vars) all = all | tv.allowed;
  r.register_kernel(d->id, ops::Backend::cpu,
                    {std::string(impl == Impl::simd ? "cpu.simd." : "cpu.scalar.") + d->name, fn, all, true});
  overwriting_ops()[d->id.value] = outputs == Outputs::overwritten;
}

bool kernel_overwrites_outputs(const ops::OpDef& op) { return overwriting_ops()[op.id.value] != 0; }

ops::HostTensor overwritten_tensor(DType dtype, ops::Extents shape, bool poison) {
  ops::HostTensor t = ops::HostTensor::uninitialized(dtype, std::move(shape));
  if (poison && !t.bytes().empty()) std::memset(t.bytes().data(), 0xA5, t.bytes().size());
  return t;
}

void register_cpu_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    ops::OpRegistry& r = ops::op_registry();
    register_elementwise_kernels(r);
    register_reduce_kernels(r);
    register_linalg_kernels(r);
    register_shape_kernels(r);
    register_nn_kernels(r);
    register_misc_kernels(r);
    register_sparse_quant_kernels(r);
    register_conv_kernels(r);
  });
}

std::string simd_target_name() {
  std::int64_t t = hwy::SupportedTargets() & HWY_TARGETS;
  if (t == 0) return "none";
  return hwy::TargetName(t & -t);
}

bool apply_simd_setting(const std::string& want, DiagnosticSink& diags) {
  if (want.empty()) return true;
  std::string names;
  for (std::int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {
    std::int64_t t = bits & -bits;
    names += std::string(names.empty() ? "" : ", ") + hwy::TargetName(t);
    if (want != std::string(hwy::TargetName(t))) continue;
    if (!(hwy::SupportedTargets() & t)) {
      diags.error("H0003", "RUNG_CPU_SIMD=" + want + ": this CPU does not support that Highway target")
          .note("the best target here is " + simd_target_name());
      return false;
    }
    hwy::SetSupportedTargetsForTest(t);
    return true;
  }
  diags.error("H0003", "RUNG_CPU_SIMD=" + want + " names no Highway target of this build").note("targets: " + names);
  return false;
}

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) return line.substr(p + 2);
    }
  return "unknown CPU";
}


// HostTensor::canonicalize_nans (every NaN becomes the dtype's canonical quiet NaN), with
// large outputs scanned over threads.
template <typename U> void canonicalize_bits(ThreadPool& pool, U* p, std::uint64_t n, U abs_mask, U inf, U canonical) {
  pool.parallel_for(n, 1u << 16, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i)
      if ((p[i] & abs_mask) > inf) p[i] = canonical;
  });
}

}  // namespace

void canonicalize_nans(ops::HostTensor& t, ThreadPool& pool) {
  void* p = t.bytes().data();
  std::uint64_t n = t.numel();
  switch (t.dtype()) {
    case DType::f32:  // vectorised: a read-only pass unless there are NaNs
      return pool.parallel_for(n, 1u << 16, [&](std::uint64_t b, std::uint64_t e) {
        simd::canonicalize_nans_f32(static_cast<float*>(p) + b, e - b, num::kCanonicalNanF32);
      });
    case DType::f64:
      return pool.parallel_for(n, 1u << 16, [&](std::uint64_t b, std::uint64_t e) {
        simd::canonicalize_nans_f64(static_cast<double*>(p) + b, e - b, num::kCanonicalNanF64);
      });
    case DType::f16:
      return canonicalize_bits<std::uint16_t>(pool, static_cast<std::uint16_t*>(p), n, 0x7FFF, 0x7C00, num::kCanonicalNanF16);
    case DType::bf16:
      return canonicalize_bits<std::uint16_t>(pool, static_cast<std::uint16_t*>(p), n, 0x7FFF, 0x7F80, num::kCanonicalNanBF16);
    default: return;
  }
}

namespace {

// Tensors of tens of MB are allocated and freed once per op. glibc serves blocks above its
// mmap threshold (at most 32 MiB, adjusted dynamically) with fresh mmaps, so every such
// output costs a page fault per 4 KiB and an munmap: more time than the kernel itself for
// memory-bound ops. Keeping large blocks in the heap lets the next op reuse the pages.
void keep_freed_tensor_memory() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

// The registry's typing of each node met, by the node's attribute map and the operands' exact
// types: a run of the same program types every node again, and for small graphs (an imported
// model's dozens of nodes) that cost more than the kernels. An entry is used only when the op,
// the operand types and the attributes all equal the ones it was made from, so a map at a
// reused address (another program's node) only misses.
class TypingMemo {
 public:
  std::shared_ptr<const ops::Typed> find(const ops::OpDef& op, const std::vector<TensorType>& types, const AttrMap& attrs) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(&attrs);
    if (it == entries_.end() || it->second.op != &op || it->second.types != types || it->second.attrs != attrs)
      return nullptr;
    return it->second.typed;
  }
  std::shared_ptr<const ops::Typed> keep(const ops::OpDef& op, std::vector<TensorType> types, const AttrMap& attrs,
                                         ops::Typed typed) {
    auto shared = std::make_shared<const ops::Typed>(std::move(typed));
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= kMaxEntries) entries_.clear();  // bounded: a long-lived backend meets many graphs
    entries_[&attrs] = Entry{&op, std::move(types), attrs, shared};
    return shared;
  }

 private:
  static constexpr std::size_t kMaxEntries = 4096;
  struct Entry {
    const ops::OpDef* op;
    std::vector<TensorType> types;
    AttrMap attrs;
    std::shared_ptr<const ops::Typed> typed;
  };
  std::mutex mu_;
  std::unordered_map<const AttrMap*, Entry> entries_;
};

class CpuBackend final : public runtime::OpBackend {
 public:
  CpuBackend(ops::Tier t, unsigned threads, bool poison) : tier_(t), pool_(threads), poison_(poison) {
    register_cpu_kernels();
    keep_freed_tensor_memory();
  }

  ops::Backend id() const override { return ops::Backend::cpu; }
  ops::Tier tier() const override { return tier_; }

  runtime::DeviceProfile profile() const override {
    runtime::DeviceProfile p{"cpu", cpu_model(), {}};
    p.facts["simd_target"] = simd_target_name();
    p.facts["threads"] = std::to_string(pool_.threads());
    p.facts["highway"] = highway_version();
    return p;
  }

  std::string kernel_hash(const ops::OpDef& op) const override {
    const ops::KernelEntry* k = ops::op_registry().kernel(op.id, ops::Backend::cpu);
    if (!k) return {};
    return k->name + "@" + std::string(kCpuSourceHash);
  }

  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    if (tier_ == ops::Tier::debug && !ops::check_fp_env_for_exact(diags)) return std::nullopt;
    const ops::KernelEntry* entry = ops::op_registry().kernel(op.id, ops::Backend::cpu);
    if (!entry) {
      diags.error("H0001", "the CPU backend has no kernel for `" + op.name + "`")
          .note("`rung ops` lists which backends have a kernel for each op; run with --backend reference");
      return std::nullopt;
    }
    std::vector<TensorType> types;
    for (const auto& t : inputs) types.push_back(t.type());
    std::shared_ptr<const ops::Typed> typed = typing_.find(op, types, attrs);
    if (!typed) {
      std::vector<std::string> errors;
      auto fresh = ops::infer_types(op, types, attrs, errors);
      if (!fresh) {
        auto& d = diags.error("N0011", "`" + op.name + "` cannot be applied to these operands");
        for (auto& e : errors) d.note(e);
        d.note("signature: " + op.signature());
        return std::nullopt;
      }
      typed = typing_.keep(op, std::move(types), attrs, std::move(*fresh));
    }
    std::vector<ops::HostTensor> outputs;
    bool overwrite = kernel_overwrites_outputs(op);
    for (const auto& rt : typed->results) {
      ops::Extents ext;
      bool static_shape = true;
      for (const auto& dim : rt.shape) {
        if (!dim.is_static()) { static_shape = false; break; }
        ext.push_back(dim.extent());
      }
      if (!static_shape) {  // data-dependent extent: the kernel allocates this output
        outputs.emplace_back(rt.dtype, ops::Extents{0});
        continue;
      }
      auto bytes = ops::HostTensor::checked_bytes(rt.dtype, ext);
      if (!bytes || *bytes > (std::uint64_t{1} << 40)) {
        diags.error("N0013", "`" + op.name + "` would produce " + rt.to_string() + ", which is too large to evaluate");
        return std::nullopt;
      }
      if (overwrite) outputs.push_back(overwritten_tensor(rt.dtype, std::move(ext), poison_));
      else outputs.emplace_back(rt.dtype, std::move(ext));
    }
    ops::KernelContext kc{inputs, outputs, typed->attrs, {}};
    CpuContext cc{kc, pool_};
    std::any_cast<CpuKernel>(entry->fn)(cc);
    if (!kc.error.empty()) {
      diags.error("N0012", "`" + op.name + "` refused its input: " + kc.error);
      return std::nullopt;
    }
    for (auto& o : outputs) canonicalize_nans(o, pool_);
    return outputs;
  }

  // The host walk with this backend's kernels; `call` nodes of fused elementwise regions run
  // chunk by chunk (fused_region.h) instead of node by node.
  std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region,
                                                         std::span<const ops::HostTensor> args,
                                                         DiagnosticSink& diags) override {
    runtime::WalkOptions o;
    o.tier = tier_;
    o.evaluate = [this](const ops::OpDef& op, std::span<const ops::HostTensor> in, const AttrMap& attrs,
                        DiagnosticSink& d) { return run_op(op, in, attrs, d); };
    o.call = [this](const Graph& graph, const Node& call, std::span<const ops::HostTensor> in, DiagnosticSink& d,
                    std::optional<std::vector<ops::HostTensor>>& out) {
      if (!is_fused_elementwise_call(graph, call)) return false;
      if (tier_ == ops::Tier::debug && !ops::check_fp_env_for_exact(d)) {
        out.reset();
        return true;
      }
      out = run_fused_elementwise(graph, call, in, pool_, d, poison_);
      return true;
    };
    return runtime::walk_region(g, region, args, diags, o);
  }

 private:
  ops::Tier tier_;
  ThreadPool pool_;
  bool poison_;
  TypingMemo typing_;
};

}  // namespace

std::unique_ptr<runtime::OpBackend> make_cpu_backend(ops::Tier tier, CpuOptions options) {
  return std::make_unique<CpuBackend>(tier, options.threads, options.poison_uninitialized);
}

unsigned threads_setting(const std::string& value) {
  if (value.empty()) return 0;
  long v = std::strtol(value.c_str(), nullptr, 10);
  return v > 0 && v <= 1024 ? static_cast<unsigned>(v) : 0;
}

}  // namespace rung::cpu

namespace rung::runtime {

void register_cpu_backend(BackendRegistry& r) {
  cpu::register_cpu_kernels();
  r.add({"cpu", "SIMD (Highway) and multithreaded kernels, bit-identical to the reference in tier debug",
         [](ops::Tier t, DiagnosticSink& d, const BackendSettings& s) -> std::unique_ptr<OpBackend> {
           if (!cpu::apply_simd_setting(s.value("RUNG_CPU_SIMD"), d)) return nullptr;
           return cpu::make_cpu_backend(t, {.threads = cpu::threads_setting(s.value("RUNG_CPU_THREADS"))});
         }});
}

}  // namespace rung::runtime
