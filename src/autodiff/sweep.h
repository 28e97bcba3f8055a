// The reverse sweep shared by differentiate() and by rules that differentiate a
// decomposition: visits nodes in reverse topological order, asks each op's rule for the
// cotangents of its inputs, and keeps every value's contributions in the order they
// arrive (reverse topological order of the uses). total() adds them in the canonical
// reduction order, so a gradient is a function of the forward graph alone.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "autodiff/emitter.h"

namespace rung::autodiff {

struct SweepError {
  std::string code;     // D0002 (no rule) or D0004 (the rule cannot handle this node)
  std::string message;  // names the op
  NodeId node = 0;
};

class Sweep {
 public:
  explicit Sweep(Emitter& e) : e_(e) {}

  void seed(ValueRef v, ValueRef cotangent) { contributions_[key(v)].push_back(cotangent); }
  // Runs over `order` (a topological order of the nodes between the seeds and the values
  // whose cotangents are wanted); only nodes in `depends` are differentiated.
  std::optional<SweepError> run(const std::vector<NodeId>& order, const std::unordered_set<NodeId>& depends);
  std::optional<ValueRef> total(ValueRef v);

 private:
  std::optional<SweepError> custom_gradient(NodeId n, const Node& node, const std::vector<ValueRef>& grads,
                                            const std::unordered_set<NodeId>& depends);
  static std::pair<NodeId, std::uint32_t> key(ValueRef v) { return {v.node, v.output}; }
  Emitter& e_;
  std::map<std::pair<NodeId, std::uint32_t>, std::vector<ValueRef>> contributions_;
};

}  // namespace rung::autodiff
