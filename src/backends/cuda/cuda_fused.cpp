#include "backends/cuda/cuda_fused.h"

#include <map>
#include <memory>
#include <mutex>

#include "backends/cuda/fused_module.h"

namespace rung::cuda {

namespace {

// Generated sources per (callee, argument types): the text and its hash are computed once.
struct Generated {
  std::optional<FusedSource> src;
  std::string why;
};
std::mutex g_mutex;
std::map<std::string, std::shared_ptr<const Generated>>& generated() {
  static std::map<std::string, std::shared_ptr<const Generated>> m;
  return m;
}

}  // namespace

bool is_fused_elementwise(const Node& call) {
  auto it = call.attrs.find("fusion");
  return it != call.attrs.end() && it->second.kind() == AttrKind::string && it->second.as<std::string>() == "elementwise";
}

FusedOutcome run_fused_call(Context& ctx, const Graph& g, const Region& callee, std::span<const DevTensor> args,
                            std::vector<DevTensor>& out, std::string& why, DiagnosticSink& diags) {
  // The element space: the broadcast of the arguments' shapes (the group's shape: every
  // member of the region produces it, every argument broadcasts to it).
  ops::Extents E;
  bool have = false;
  for (const auto& a : args)
    if (!a.shape.empty()) {
      have = true;
      if (a.shape.size() > E.size()) E.insert(E.begin(), a.shape.size() - E.size(), 1);
      for (std::size_t k = 0; k < a.shape.size(); ++k) {
        std::uint64_t& e = E[E.size() - 1 - k];
        std::uint64_t d = a.shape[a.shape.size() - 1 - k];
        if (e == 1) e = d;
        else if (d != 1 && d != e) {
          why = "the argument shapes " + ops::extents_to_string(a.shape) + " and " + ops::extents_to_string(E) +
                " do not broadcast";
          return FusedOutcome::op_by_op;
        }
      }
    }
  if (!fused_compiler_available()) {
    why = "this build has no NVRTC (CUDA::nvrtc was not found when it was configured)";
    return FusedOutcome::op_by_op;
  }
  std::vector<FusedValue> types;
  std::string key = callee.hash.hex();
  for (std::size_t i = 0; i < args.size(); ++i) {
    FusedValue v{args[i].dtype, args[i].shape.empty(), {}};
    key += "/" + std::to_string(static_cast<int>(args[i].dtype)) + (args[i].shape.empty() ? "s" : "t");
    if (!v.scalar && args[i].shape != E) {  // a broadcast argument: its walk is part of the kernel
      auto walk = broadcast_walk(args[i].shape, E);
      if (!walk) {
        why = "argument " + std::to_string(i) + " has shape " + ops::extents_to_string(args[i].shape) +
              ", which does not broadcast to " + ops::extents_to_string(E);
        return FusedOutcome::op_by_op;
      }
      v.broadcast = std::move(*walk);
      key += ops::extents_to_string(args[i].shape) + "->" + ops::extents_to_string(E);
    }
    types.push_back(std::move(v));
  }
  std::shared_ptr<const Generated> gen;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto& m = generated();
    auto it = m.find(key);
    if (it == m.end()) {
      auto fresh = std::make_shared<Generated>();
      fresh->src = generate_fused_kernel(g, callee, types, fresh->why);
      it = m.emplace(key, std::move(fresh)).first;
    }
    gen = it->second;
  }
  if (!gen->src) {
    why = gen->why;
    return FusedOutcome::op_by_op;
  }
  std::string error;
  const FusedKernel* k = fused_kernel(*gen->src, ctx.fused_cache_dir, error);
  if (!k) {
    diags.error("U0006", "the fused elementwise region `" + callee.name + "` could not be built for the device: " + error)
        .note("generated kernel " + gen->src->hash);
    return FusedOutcome::failed;
  }
  std::uint64_t n = have ? ops::element_count(E) : 1;
  out.clear();
  std::vector<void*> res;
  for (const auto& r : k->results) {
    auto t = ctx.alloc(r.dtype, r.scalar ? ops::Extents{} : E, diags);
    if (!t) return FusedOutcome::failed;
    res.push_back(t->data());
    out.push_back(std::move(*t));
  }
  std::vector<const void*> in;
  for (const auto& a : args) in.push_back(a.data());
  if (!ctx.check(launch_fused(*k, in, res, have ? n : 0, ctx.stream()), "launching the fused kernel of `" + callee.name + "`",
                 diags))
    return FusedOutcome::failed;
  ++ctx.fused_one_kernel;
  ctx.fused_kernels[callee.name] = k->hash;
  return FusedOutcome::ran;
}

}  // namespace rung::cuda
