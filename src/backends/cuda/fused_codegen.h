// CUDA source for one fused elementwise region (a `call` with fusion = "elementwise", what
// the fuse pass emits): one kernel that loads each argument's element (rank-0 arguments are
// the same value for every element), evaluates the callee's nodes in order in registers
// with the per-node dtype roundings of the unfused graph, and stores only the results.
// Plain host C++ (no CUDA): the text goes to NVRTC (fused_module.cpp), and its SHA3-256
// (with the headers it includes and the compile options) is the kernel's identity for the
// module cache and the run's records.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph/graph.h"

namespace rung::cuda {

// An operand or result of the generated kernel: element type and whether it is rank 0.
struct FusedValue {
  DType dtype = DType::f32;
  bool scalar = false;
  bool operator==(const FusedValue&) const = default;
};

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
