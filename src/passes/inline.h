// Inlining one call: copies the callee's body into the graph with its parameters replaced
// by the call's arguments; returns the values that replace the call's results. The callee
// must already be in `b`'s graph (it is named by hash in the call's `callee` attribute).
#pragma once

#include <vector>

#include "ir/graph/builder.h"

namespace rung {
std::vector<ValueRef> inline_call(GraphBuilder& b, const Node& call, const std::vector<ValueRef>& args);
}  // namespace rung
