// The binary64 reference path gradcheck differentiates numerically: evaluates a region with
// every floating-point value held in f64, whatever dtype the graph declares. Per node:
//  1. ops whose signature admits f64 run their reference kernel on f64 operands;
//  2. the transcendental elementwise ops (exp, log, sin, cos, tanh, sigmoid, silu, erf,
//     gelu, pow) use the C library's binary64 functions;
//  3. other f32-only composites (softmax family, norms, rope, attention, ffn_*, losses)
//     are evaluated through their decomposition (decompose.h), recursively in f64;
//  4. ops without float operands that are declared not differentiable (random sources,
//     dequantize, ...) run at their declared dtypes and their results are widened.
// Anything else is diagnostic D0010 (no binary64 path). Central differences of this path
// are accurate to ~1e-9, so gradcheck tolerances measure the rule, not f32 rounding.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ops/host_tensor.h"

namespace rung::autodiff {

// `args` may be any dtype; float arguments are widened to f64. Results: float values in
// f64, others in their declared dtype.
std::optional<std::vector<ops::HostTensor>> run_region_f64(const Graph& g, RegionId region,
                                                           std::span<const ops::HostTensor> args, DiagnosticSink& diags);

// Widens a float tensor to f64 (exactly); other dtypes are returned unchanged.
ops::HostTensor widen(const ops::HostTensor& t);

}  // namespace rung::autodiff
