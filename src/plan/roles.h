// Allocation classes from the program's structure (never from names of values):
//   - a gradient region is one autodiff made: `<f>.grad`, results = f's result followed by
//     one gradient per differentiated parameter, each of that parameter's type;
//   - a region parameter is a model parameter when it reaches a gradient region's
//     differentiated operand (through calls), master weights when it reaches it through a
//     cast from f32 to f16/bf16, optimizer state when it feeds a state operand of
//     sgd_update / adam_update (operand 0 of those is the parameter);
//   - BlockIR slots take the role of the region parameters they are passed to, and share
//     it along `assign` (the value that becomes the next step's weights is a weight);
//     slots receiving a gradient region's gradients are gradients; files read and entry
//     arguments are inputs, and so is every value computed from inputs alone.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "ir/block/block.h"
#include "plan/memory_plan.h"

namespace rung::plan {

// The number of differentiated parameters if `r` is a gradient region, else nullopt.
std::optional<std::size_t> gradient_wrt_count(const Graph& g, RegionId r);

class Roles {
 public:
  explicit Roles(const block::Program& p) : p_(p) {}

  // Per region parameter: parameters, master_weights, optimizer_state, or working (none).
  const std::vector<AllocClass>& region_params(RegionId r);
  // Per slot of `f`; entry says whether f's parameters are entry arguments (inputs).
  const std::vector<AllocClass>& slots(const block::Function& f);
  // The class of every output of every node of region `r`, given the classes the caller
  // assigns to the region's results. Keyed by node, one entry per output.
  std::map<NodeId, std::vector<AllocClass>> region_values(RegionId r, const std::vector<AllocClass>& result_classes);

 private:
  const block::Program& p_;
  std::map<RegionId, std::vector<AllocClass>> region_memo_;
  std::map<std::string, std::vector<AllocClass>> slot_memo_;
  std::map<RegionId, std::vector<AllocClass>> cycle_regions_;
  std::map<std::string, std::vector<AllocClass>> cycle_slots_;
  std::vector<RegionId> region_stack_;
  std::vector<std::string> fn_stack_;
};

}  // namespace rung::plan
