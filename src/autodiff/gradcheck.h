// Gradcheck: a gradient rule (or a whole differentiated function) against central finite
// differences of the forward evaluated in binary64 (f64_reference.h).
//
// The scalar that is differentiated is loss = sum_r sum(result_r * w_r) with fixed
// pseudo-random weights w_r (results of static shape), or sum_r sum(result_r^2) / 2 when a
// result has symbolic dims — either way the incoming cotangent is not uniform, so a rule
// that ignores it fails. Both the gradient region and the forward are evaluated by the f64
// path, so the comparison measures the rule's mathematics, not f32 rounding:
//   element ok  <=>  |analytic - numeric| <= tolerance * (1 + |numeric|)
// with numeric = (L(x + h) - L(x - h)) / 2h, h = 1e-6 and tolerance = 1e-6 by default.
// For a registry op, the f64 path's forward value is also compared with the op's own
// reference kernel (relative 1e-4 in f32): a wrong decomposition cannot pass.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ops/host_tensor.h"

namespace rung::autodiff {

struct GradcheckOptions {
  double step = 1e-6;
  double tolerance = 1e-6;
  double forward_tolerance = 1e-4;  // op's kernel vs the f64 path, relative to 1 + max |y|
  std::uint64_t max_elements = 64;  // per input; larger inputs are checked at evenly spaced elements
  std::uint64_t seed = 42;
};

struct InputCheck {
  std::string name;
  std::uint64_t elements = 0, checked = 0;
  double max_abs = 0, max_rel = 0;  // rel = abs / (1 + |numeric|)
  std::uint64_t worst = 0;          // element index of max_rel
  double analytic = 0, numeric = 0;  // at `worst`
  bool ok = true;
};

struct GradcheckReport {
  std::string subject;
  std::vector<InputCheck> inputs;
  std::optional<double> forward_error;  // registry ops: kernel vs f64 path (relative)
  bool forward_ok = true;
  bool ok() const;
  std::string table(const GradcheckOptions& o) const;
};

// Checks region `f` of `g` at `args` with respect to the parameters in `wrt`. Adds the
// loss wrapper and the gradient region to `g`.
std::optional<GradcheckReport> gradcheck_region(Graph& g, RegionId f, const std::vector<ops::HostTensor>& args,
                                                const std::vector<std::size_t>& wrt, const GradcheckOptions& o,
                                                DiagnosticSink& diags);

// Arguments for the parameters of `r`: floats uniform in [-1.5, 1.5], integers in
// [0, int_max], bools random. Symbolic dims come from `dims`, else `default_dim` (0: an
// unbound symbol is diagnostic D0014).
std::optional<std::vector<ops::HostTensor>> generate_args(const Graph& g, const Region& r,
                                                          const std::map<std::string, std::uint64_t>& dims,
                                                          std::uint64_t default_dim, std::uint64_t seed, std::int64_t int_max,
                                                          DiagnosticSink& diags);

// A custom op's gradient region `grad` against central differences of its forward `f`
// (the check a custom op passes before use in tiers debug and prod). Its signature is
// checked first: grad(f's params..., one cotangent per f result) -> one cotangent per
// floating-point parameter of f, of that parameter's type (D0021 otherwise).
std::optional<GradcheckReport> verify_custom_gradient(Graph& g, RegionId f, RegionId grad, const GradcheckOptions& o,
                                                      DiagnosticSink& diags);

// One application of a registry op with generated arguments.
struct OpCase {
  std::string op;
  struct Input {
    ops::Extents shape;
    DType dtype = DType::f32;
    // real: in (-1.5, 1.5); positive: (0.5, 1.5); unit: (-0.9, 0.9), inside asin's domain
    enum class Kind { real, positive, unit, index, boolean, given } kind = Kind::real;
    std::uint64_t bound = 0;  // index: values in [0, bound)
    std::optional<ops::HostTensor> value;  // given
  };
  std::vector<Input> inputs;
  AttrMap attrs;
  std::string label;  // shown in reports ("matmul transpose_a")
};

std::optional<GradcheckReport> gradcheck_op(const OpCase& c, const GradcheckOptions& o, DiagnosticSink& diags);

// The built-in cases of an op (every differentiable registry op has at least one; a test
// asserts it). Empty for unknown or non-differentiable ops.
std::vector<OpCase> builtin_cases(std::string_view op);

}  // namespace rung::autodiff
