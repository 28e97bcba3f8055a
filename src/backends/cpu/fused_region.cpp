#include "backends/cpu/fused_region.h"

#include <cstring>
#include <unordered_map>

#include "backends/cpu/broadcast_chunk.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/simd.h"
#include "ir/graph/walk.h"
#include "ops/typing.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

namespace {

using ops::Extents;
using ops::HostTensor;

bool fusible_family(const std::string& f) { return f == "elementwise" || f == "compare" || f == "cast"; }

// One node of the callee, prepared once.
struct Step {
  NodeId id = 0;
  enum Kind { param, constant, op } kind = op;
  std::size_t param_index = 0;
  HostTensor value;                 // constants
  const ops::OpDef* def = nullptr;  // ops
  CpuKernel kernel = nullptr;
  ops::Attrs attrs;
  DType out_dtype = DType::f32;
  bool scalar = false;              // rank 0: the same value for every chunk
  std::optional<BroadcastWalk> walk;  // params and constants of a shape that broadcasts to the space
  bool overwrites = false;          // the kernel writes every output element
};

}  // namespace

bool is_fused_elementwise_call(const Graph& g, const Node& call) {
  (void)g;
  auto it = call.attrs.find("fusion");
  return it != call.attrs.end() && it->second.kind() == AttrKind::string && it->second.as<std::string>() == "elementwise";
}

std::optional<std::vector<HostTensor>> run_fused_elementwise(const Graph& g, const Node& call,
                                                             std::span<const HostTensor> args, ThreadPool& pool,
                                                             DiagnosticSink& diags, bool poison) {
  auto refuse = [&](const std::string& why) -> std::optional<std::vector<HostTensor>> {
    diags.error("H0002", "the CPU backend cannot run this fused elementwise region: " + why)
        .note("a region marked fusion = \"elementwise\" holds only elementwise, compare, cast and where ops on "
              "operands that broadcast to the output's shape");
    return std::nullopt;
  };
  auto callee_id = g.find_region(call.attrs.at("callee").as<Hash256>());
  if (!callee_id) return refuse("its callee is not in the graph");
  const Region& r = g.region(*callee_id);
  if (args.size() != r.params.size())
    return refuse("it takes " + std::to_string(r.params.size()) + " arguments, " + std::to_string(args.size()) + " were given");
  // The element space: the broadcast of the arguments' shapes (the group's shape: every
  // member produces it, every argument broadcasts to it).
  Extents E;
  bool have = false;
  for (const auto& a : args)
    if (a.rank() > 0) {
      have = true;
      if (a.rank() > E.size()) E.insert(E.begin(), a.rank() - E.size(), 1);
      for (std::size_t k = 0; k < a.rank(); ++k) {
        std::uint64_t& e = E[E.size() - 1 - k];
        std::uint64_t d = a.shape()[a.rank() - 1 - k];
        if (e == 1) e = d;
        else if (d != 1 && d != e) return refuse("argument shapes " + ops::extents_to_string(a.shape()) + " and " +
                                                  ops::extents_to_string(E) + " do not broadcast");
      }
    }
  std::uint64_t n = have ? ops::element_count(E) : 1;

  std::vector<NodeId> order = nodes_in_region(g, r);
  std::unordered_map<NodeId, std::size_t> step_of;
  std::vector<Step> steps;
  for (NodeId id : order) {
    const Node& node = g.node(id);
    Step s;
    s.id = id;
    if (node.opcode == opcode::kParam) {
      s.kind = Step::param;
      for (std::size_t i = 0; i < r.params.size(); ++i)
        if (r.params[i] == id) s.param_index = i;
      s.scalar = args[s.param_index].rank() == 0;
      if (!s.scalar && args[s.param_index].shape() != E) s.walk.emplace(args[s.param_index].shape(), E);
    } else if (node.opcode == opcode::kConst) {
      s.kind = Step::constant;
      const TensorType& t = node.outputs[0];
      Extents ext;
      for (const auto& d : t.shape) ext.push_back(d.extent());
      const Bytes& b = node.attrs.at("value").as<Bytes>();
      s.value = HostTensor(t.dtype, ext, std::vector<std::uint8_t>(b.begin(), b.end()));
      s.scalar = ext.empty();
      if (!s.scalar && !broadcasts_to(ext, E))
        return refuse("a constant of shape " + ops::extents_to_string(ext) + " does not broadcast to " + ops::extents_to_string(E));
      if (!s.scalar && ext != E) s.walk.emplace(ext, E);
    } else {
      s.def = ops::op_registry().find(node.opcode);
      if (!s.def || !fusible_family(s.def->family)) return refuse("`" + node.opcode + "` is not an elementwise op");
      const ops::KernelEntry* k = ops::op_registry().kernel(s.def->id, ops::Backend::cpu);
      if (!k) return refuse("`" + node.opcode + "` has no CPU kernel");
      s.kernel = std::any_cast<CpuKernel>(k->fn);
      s.overwrites = kernel_overwrites_outputs(*s.def);
      std::vector<TensorType> in_types;
      bool all_scalar = true;
      for (const auto& v : node.inputs) {
        auto it = step_of.find(v.node);
        if (it == step_of.end()) return refuse("an operand comes from outside the region");
        const Step& src = steps[it->second];
        all_scalar = all_scalar && src.scalar;
        TensorType t;
        t.dtype = src.kind == Step::param ? args[src.param_index].dtype()
                  : src.kind == Step::constant ? src.value.dtype() : src.out_dtype;
        if (!src.scalar) t.shape = {Dim::fixed(kFusedChunk)};
        in_types.push_back(t);
      }
      std::vector<std::string> errors;
      auto typed = ops::infer_types(*s.def, in_types, node.attrs, errors);
      if (!typed) return refuse("`" + node.opcode + "` does not type-check: " + (errors.empty() ? "" : errors.front()));
      if (typed->results.size() != 1) return refuse("`" + node.opcode + "` has more than one result");
      s.attrs = typed->attrs;
      s.out_dtype = typed->results[0].dtype;
      s.scalar = all_scalar;
    }
    step_of[id] = steps.size();
    steps.push_back(std::move(s));
  }
  std::vector<std::size_t> result_steps;
  std::vector<HostTensor> results;
  for (const auto& v : r.results) {
    const Step& s = steps[step_of.at(v.node)];
    DType t = s.kind == Step::param ? args[s.param_index].dtype() : s.kind == Step::constant ? s.value.dtype() : s.out_dtype;
    result_steps.push_back(step_of.at(v.node));
    results.push_back(overwritten_tensor(t, s.scalar ? Extents{} : E, poison));  // every chunk writes its part
  }

  // At least one chunk, so that rank-0 results are computed even when n is 0.
  std::uint64_t chunks = n == 0 ? 1 : (n + kFusedChunk - 1) / kFusedChunk;
  std::vector<std::string> errors(chunks);
  // Which steps are region results (their chunks are canonicalised; NaN payloads of
  // intermediates cannot change any result's bits once the results are canonicalised).
  std::vector<char> is_result(steps.size(), 0);
  for (auto k : result_steps) is_result[k] = 1;
  pool.parallel_for(chunks, 1, [&](std::uint64_t c0, std::uint64_t c1) {
    ThreadPool inline_pool(1);
    // One chunk-sized tensor per step, reused from chunk to chunk (elementwise kernels write
    // every element, so no clearing is needed); only a shorter last chunk reallocates.
    std::vector<HostTensor> vals(steps.size());
    std::vector<std::vector<HostTensor>> ins(steps.size());
    for (std::uint64_t ch = c0; ch < c1; ++ch) {
      std::uint64_t b = ch * kFusedChunk, e = std::min(n, b + kFusedChunk), len = e - b;
      for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        if (s.kind != Step::op) {
          const HostTensor& src = s.kind == Step::param ? args[s.param_index] : s.value;
          if (s.scalar) {
            if (ch == c0) vals[i] = src.share();
            continue;
          }
          if (vals[i].rank() != 1 || vals[i].shape()[0] != len) vals[i] = overwritten_tensor(src.dtype(), {len}, poison);
          std::size_t w = ops::elem_size(src.dtype());
          if (s.walk) s.walk->gather(src.bytes().data(), w, b, len, vals[i].bytes().data());
          else std::memcpy(vals[i].bytes().data(), src.bytes().data() + b * w, len * w);
          continue;
        }
        // Operands are moved in and handed back after the kernel (copied only when one
        // value feeds the same node twice).
        const auto& operands = g.node(s.id).inputs;
        auto& in = ins[i];
        in.clear();
        for (std::size_t j = 0; j < operands.size(); ++j) {
          std::size_t k = step_of.at(operands[j].node), first = j;
          for (std::size_t q = 0; q < j; ++q)
            if (step_of.at(operands[q].node) == k) { first = q; break; }
          in.push_back(first == j ? std::move(vals[k]) : in[first].share());
        }
        Extents want = s.scalar ? Extents{} : Extents{len};
        if (vals[i].dtype() != s.out_dtype || vals[i].shape() != want ||
            vals[i].bytes().size() != ops::elem_size(s.out_dtype) * ops::element_count(want))
          vals[i] = s.overwrites ? overwritten_tensor(s.out_dtype, want, poison) : HostTensor(s.out_dtype, want);
        std::span<HostTensor> out(&vals[i], 1);
        ops::KernelContext kc{in, out, s.attrs, {}};
        CpuContext cc{kc, inline_pool};
        s.kernel(cc);
        for (std::size_t j = 0; j < operands.size(); ++j) {
          std::size_t k = step_of.at(operands[j].node);
          bool first = true;
          for (std::size_t q = 0; q < j; ++q) first = first && step_of.at(operands[q].node) != k;
          if (first) vals[k] = std::move(in[j]);
        }
        if (!kc.error.empty()) {
          errors[ch] = "`" + s.def->name + "` refused its input: " + kc.error;
          return;
        }
        if (is_result[i]) canonicalize_nans(vals[i], inline_pool);
      }
      for (std::size_t k = 0; k < results.size(); ++k) {
        const HostTensor& v = vals[result_steps[k]];
        std::size_t w = ops::elem_size(v.dtype());
        if (results[k].rank() == 0) {
          if (ch == 0) std::memcpy(results[k].bytes().data(), v.bytes().data(), w);
        } else if (v.rank() == 0) {  // a scalar result broadcast over the output (e.g. a param passed through)
          for (std::uint64_t i = b; i < e; ++i) std::memcpy(results[k].bytes().data() + i * w, v.bytes().data(), w);
        } else {
          simd::stream_copy(results[k].bytes().data() + b * w, v.bytes().data(), len * w);
        }
      }
    }
  });
  for (const auto& e : errors)
    if (!e.empty()) {
      diags.error("N0012", e);
      return std::nullopt;
    }
  return results;
}

}  // namespace rung::cpu
