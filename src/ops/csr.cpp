#include "ops/csr.h"

namespace rung::ops {

std::string validate_csr(const CsrView& a, std::uint64_t K) {
  std::uint64_t M = a.rows(), nnz = a.indices.numel();
  auto at = [&](std::uint64_t r) { return a.indptr.load_i64(r); };
  if (at(0) != 0) return "indptr[0] is " + std::to_string(at(0)) + ", must be 0";
  for (std::uint64_t r = 0; r < M; ++r)
    if (at(r + 1) < at(r))
      return "indptr is not monotone: indptr[" + std::to_string(r) + "] = " + std::to_string(at(r)) + " > indptr[" +
             std::to_string(r + 1) + "] = " + std::to_string(at(r + 1));
  if (static_cast<std::uint64_t>(at(M)) != nnz)
    return "indptr[" + std::to_string(M) + "] = " + std::to_string(at(M)) + " but there are " + std::to_string(nnz) +
           " stored entries";
  for (std::uint64_t r = 0; r < M; ++r)
    for (std::uint64_t p = a.begin(r); p < a.end(r); ++p) {
      std::int64_t c = a.indices.load_i64(p);
      if (c < 0 || static_cast<std::uint64_t>(c) >= K)
        return "column index " + std::to_string(c) + " in row " + std::to_string(r) + " (entry " + std::to_string(p) +
               ") is out of range [0, " + std::to_string(K) + ")";
      if (p > a.begin(r) && c <= a.indices.load_i64(p - 1))
        return "column indices of row " + std::to_string(r) + " are not strictly increasing at entry " +
               std::to_string(p) + " (" + std::to_string(c) + " after " + std::to_string(a.indices.load_i64(p - 1)) +
               "); CSR rows must be sorted without duplicates";
    }
  return {};
}

}  // namespace rung::ops
