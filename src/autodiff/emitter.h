// Builds backward computations: every node a gradient rule emits goes through the op
// registry's type checker, so a rule cannot produce an ill-typed graph. A type failure here
// is a bug in a rule (RUNG_CHECK), not a user error: users reach rules only through ops
// whose forward already type-checked.
#pragma once

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
  const TensorType& type(ValueRef v) const { return b_.type_of(v); }

  // Sums a broadcast gradient back to the shape of `like` (the operand that was broadcast):
  // over leading dims it lacks, then (keeping dims) over dims where it has extent 1.
  ValueRef reduce_like(ValueRef g, ValueRef like);

  GraphBuilder& builder() { return b_; }

 private:
  GraphBuilder b_;
};

}  // namespace rung::autodiff
