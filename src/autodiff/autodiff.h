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
// parameters to the loss has no gradient rule (the op is named); D0003 a requested
// parameter does not exist or is not a float tensor.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"

namespace rung::autodiff {

std::optional<RegionId> differentiate(Graph& g, RegionId f, std::span<const std::size_t> wrt, DiagnosticSink& diags);

// Registry ops with floating-point results and no gradient rule, sorted by name.
std::vector<std::string> ops_without_gradient();

}  // namespace rung::autodiff
