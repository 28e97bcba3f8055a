// CUDA source for one fused elementwise region (a `call` with fusion = "elementwise", what
// the fuse pass emits): one kernel that loads each argument's element (rank-0 arguments are
// the same value for every element; a broadcast argument's element is found from the flat
// index with the space's extents written into the text), evaluates the callee's nodes in order in registers
// with the per-node dtype roundings of the unfused graph, and stores only the results.
// Plain host C++ (no CUDA): the text goes to NVRTC (fused_module.cpp), and its SHA3-256
// (with the headers it includes and the compile options) is the kernel's identity for the
// module cache and the run's records.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph/graph.h"
#include "ops/broadcast_walk.h"

namespace rung::cuda {

// One dim of the element space as a broadcast argument walks it (ops/broadcast_walk.h).
using ops::BroadcastDim;

// An operand or result of the generated kernel: element type, whether it is rank 0, and for
// an argument of a shape that broadcasts to the element space (neither rank 0 nor the
// space's shape) the walk that maps the space's flat index to its element (baked into the
// kernel as constants; empty for the others, which keep the 16-byte vector path).
struct FusedValue {
  DType dtype = DType::f32;
  bool scalar = false;
  std::vector<BroadcastDim> broadcast;
  bool operator==(const FusedValue&) const = default;
};

// The walk of an argument over the element space (ops/broadcast_walk.h).
using ops::broadcast_walk;

struct FusedSource {
  std::string source;  // CUDA C++: extern "C" kernel kFusedKernelName
  std::string hash;    // SHA3-256 hex of `source` with the text it includes and the NVRTC options
  std::vector<FusedValue> args, results;
};

inline constexpr const char* kFusedKernelName = "rung_fused";
inline constexpr std::size_t kFusedMaxOperands = 64;  // arguments + results (kernel parameter space)

// The kernel for region `callee` run on arguments of these types, or nullopt with `why`
// naming what the generator cannot handle (an op outside the fusible families, a constant
// that is not rank 0, a node with several results, too many operands).
std::optional<FusedSource> generate_fused_kernel(const Graph& g, const Region& callee, std::span<const FusedValue> args,
                                                 std::string& why);

}  // namespace rung::cuda
