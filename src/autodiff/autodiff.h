// Reverse-mode automatic differentiation as a GraphIR -> GraphIR transform.
//
// differentiate() adds to the graph a region `<name>.grad` taking f's parameters and
// returning f's results followed by d(result 0)/d(parameter) for each requested parameter.
// Result 0 must be a floating-point scalar (a loss). Calls inside f are inlined first.
// Determinism: where a value feeds several uses, its cotangent contributions are added in
// one fixed order (reverse topological order of the uses, a left fold), so gradients are
// bit-identical run to run and on every backend that follows the op definitions.
//
// Diagnostics: D0001 result 0 is not a float scalar; D0002 an op on the path from the
// parameters to the loss has no gradient rule or is not differentiable (the op is named);
// D0003 a requested parameter does not exist or is not a float tensor; D0004 a rule cannot
// differentiate this particular node (e.g. it needs a static extent; the reason is given).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"

namespace rung::autodiff {

// Custom ops: a `call` node carrying attribute `custom_grad` (the hash of a region G) is
// not inlined; its gradient is G(op's operands..., cotangent of each result...), which
// returns one cotangent per floating-point operand, in order. verify_custom_gradient()
// gradchecks G against central differences of the op's own forward (gradcheck.h).
inline constexpr const char* kCustomGradAttr = "custom_grad";

std::optional<RegionId> differentiate(Graph& g, RegionId f, std::span<const std::size_t> wrt, DiagnosticSink& diags);

// Registry ops with neither a gradient rule nor an explicit declaration that they have no
// derivative, sorted by name (empty when every op is accounted for; a test asserts it).
std::vector<std::string> ops_without_gradient();
// Ops declared not differentiable, with the reason, sorted by name.
std::vector<std::pair<std::string, std::string>> non_differentiable_ops();

}  // namespace rung::autodiff
