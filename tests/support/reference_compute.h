// The reference backend as the BlockIR executor's ComputeBackend, as `rung run --backend
// reference` runs programs: for tests that execute whole programs (runtime::execute needs a
// backend; the runtime reaches the reference only through the backend contract).
#pragma once

#include <memory>

#include "backends/reference/reference_backend.h"
#include "runtime/interpreter.h"

namespace rung::test_support {

struct ReferenceCompute {
  explicit ReferenceCompute(ops::Tier tier = ops::Tier::debug)
      : op(reference::make_backend(tier)), compute(runtime::as_compute_backend(*op)) {}
  runtime::ComputeBackend* get() const { return compute.get(); }
  // Options that run every `compute` on it.
  runtime::ExecOptions options() const {
    runtime::ExecOptions o;
    o.backend = get();
    return o;
  }

  std::unique_ptr<runtime::OpBackend> op;
  std::unique_ptr<runtime::ComputeBackend> compute;
};

}  // namespace rung::test_support
