// Importing nodes one at a time, and subgraph bodies (If's branches, Loop's and Scan's body)
// inline: a body is imported once per use (once per iteration for Loop and Scan, which are
// unrolled), its inputs bound to the values the op gives, the outer scope's names visible.
// Nothing of a body stays behind: each name it defines is dropped (or the outer value it
// shadowed restored) when it is done.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "onnx/context.h"

namespace rung::onnx_import {

inline constexpr std::uint64_t kMaxIterations = 4096;            // per Loop or Scan (I0002 above)
inline constexpr std::uint64_t kMaxUnrolledNodes = 1u << 18;     // body nodes (+1 per body import) per model (I0002 above)

// The handler for node `n`, or null (reported at `place`) when none can take it: its domain
// has no handlers (I0004), the model imports no opset for the domain (I0003), or no handler
// covers the op at that opset (I0004).
struct Handler;
const Handler* handler_for(Converter& c, const ::onnx::NodeProto& n, const std::string& place);

// The opset `n` is imported at: its domain's version among the model's imports (0 if none).
std::int64_t node_opset(const Converter& c, const ::onnx::NodeProto& n);

// Runs `n`'s handler (I0013 for an input no scope defines; I0005 for an attribute it did not
// read or an output it did not make) and passes each output to `define`.
bool import_node(Converter& c, const ::onnx::NodeProto& n, const std::string& place,
                 const std::function<void(const std::string&, Value)>& define);

// One import of the body `g` of c's node (`what` names it in places: "then_branch",
// "body iteration 3"): its inputs bound to `args` (I0005 when the count differs), its nodes
// imported in order, its outputs' values returned.
std::optional<std::vector<Value>> import_body(NodeCtx& c, const ::onnx::GraphProto& g, const std::vector<Value>& args,
                                              const std::string& what);

}  // namespace rung::onnx_import
