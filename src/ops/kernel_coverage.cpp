#include "ops/kernel_coverage.h"

namespace rung::ops {

std::vector<DType> row_dtypes(const OpDef& op) {
  std::vector<DType> out;
  if (op.type_vars.empty()) return out;
  for (std::uint8_t code = 1; code <= kDTypeMaxCode; ++code)
    if (auto t = dtype_from_code(code); t && op.type_vars[0].allowed.contains(*t)) out.push_back(*t);
  return out;
}

std::vector<DType> missing_dtypes(const OpRegistry& r, const OpDef& op, Backend backend) {
  std::vector<DType> out;
  const KernelEntry* k = r.kernel(op.id, backend);
  if (!k) return out;
  for (DType t : row_dtypes(op))
    if (!k->dtypes.contains(t)) out.push_back(t);
  return out;
}

}  // namespace rung::ops
