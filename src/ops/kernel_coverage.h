// Which element types a backend's kernel for an op covers, per the kernel entry the backend
// registered (KernelEntry::dtypes), against the dtypes the op accepts: the question
// `rung ops --missing BACKEND` answers per (op, dtype), for every backend alike.
#pragma once

#include <vector>

#include "ops/registry.h"

namespace rung::ops {

// The dtypes an op is applied at: its first type variable's (what conformance rows are);
// empty for ops without type variables (iota, random_*: the result type is an attribute).
std::vector<DType> row_dtypes(const OpDef& op);

// The row dtypes of `op` that `backend`'s kernel does not cover. Empty when it covers every
// one, or when there is no kernel at all (OpRegistry::missing_kernels lists those).
std::vector<DType> missing_dtypes(const OpRegistry& r, const OpDef& op, Backend backend);

}  // namespace rung::ops
