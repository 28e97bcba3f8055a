// Evaluates one op on the reference kernels: the oracle `rung eval` and the conformance
// suite use. Every user-visible failure (unknown op, operands that do not fit, bad
// attributes, data the kernel refuses, a floating-point environment that cannot give exact
// results) is a diagnostic, never a crash.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "base/diagnostic.h"
#include "ops/registry.h"

namespace rung::ops {

struct EvalOptions {
  Tier tier = Tier::debug;  // debug: refuse (N0001) unless the FP environment is exact
};

// Diagnostic codes: N0010 unknown op, N0011 operands / attributes / shapes do not fit,
// N0012 data-dependent failure in the kernel, N0013 an output too large to allocate.
std::optional<std::vector<HostTensor>> evaluate(const OpDef& op, std::span<const HostTensor> inputs,
                                                const AttrMap& attrs, DiagnosticSink& diags,
                                                const EvalOptions& options = {});
std::optional<std::vector<HostTensor>> evaluate(std::string_view op, std::span<const HostTensor> inputs,
                                                const AttrMap& attrs, DiagnosticSink& diags,
                                                const EvalOptions& options = {});

}  // namespace rung::ops
