// Builds backward computations: every node a gradient rule emits goes through the op
// registry's type checker, so a rule cannot produce an ill-typed graph. A type failure here
// is a bug in a rule (RUNG_CHECK), not a user error: users reach rules only through ops
// whose forward already type-checked. What a rule cannot do for a particular node (a
// gradient that needs a static extent the graph does not have, say) it reports with
// fail(); differentiate() turns that into diagnostic D0004.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/graph/builder.h"

namespace rung::autodiff {

class Emitter {
 public:
  explicit Emitter(Graph& g) : b_(g) {}

  ValueRef op(std::string_view name, std::vector<ValueRef> inputs, AttrMap attrs = {});
  std::vector<ValueRef> op_multi(std::string_view name, std::vector<ValueRef> inputs, AttrMap attrs = {});
  ValueRef scalar(DType dt, double value);  // a rank-0 constant
  // A constant of the given static type from f64 values (rounded once to its dtype).
  ValueRef constant(const TensorType& t, const std::vector<double>& values);
  const TensorType& type(ValueRef v) const { return b_.type_of(v); }

  // Sums a broadcast gradient back to the shape of `like` (the operand that was broadcast):
  // over leading dims it lacks, then (keeping dims) over dims where it has extent 1.
  ValueRef reduce_like(ValueRef g, ValueRef like);

  // Adds `terms` in the canonical reduction tree's order (numerics/reduce_tree.h: 32 lanes
  // over chunks of 4096, lanes folded pairwise), without the +0 identity. One term passes
  // unchanged.
  ValueRef canonical_add(const std::vector<ValueRef>& terms);

  void fail(std::string why) { if (error_.empty()) error_ = std::move(why); }
  const std::string& error() const { return error_; }
  void clear_error() { error_.clear(); }

  GraphBuilder& builder() { return b_; }

 private:
  GraphBuilder b_;
  std::string error_;
};

}  // namespace rung::autodiff
