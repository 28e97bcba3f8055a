#include "ops/dtype_set.h"

namespace rung::ops {

std::string DTypeSet::to_string() const {
  std::string s;
  for (std::uint8_t c = 1; c <= kDTypeMaxCode; ++c) {
    auto t = dtype_from_code(c);
    if (t && contains(*t)) s += (s.empty() ? "" : "|") + std::string(dtype_name(*t));
  }
  return s.empty() ? "(none)" : s;
}

}  // namespace rung::ops
