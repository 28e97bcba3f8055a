// A CSR matrix as the sparse ops see it: three tensors (indptr [M+1], indices [nnz],
// values [nnz]) and a column count K. `validate_csr` is the one structural check every
// sparse kernel runs before reading an element (docs/semantics.md, "Sparse").
#pragma once

#include <optional>
#include <string>

#include "ops/host_tensor.h"

namespace rung::ops {

struct CsrView {
  const HostTensor& indptr;
  const HostTensor& indices;
  const HostTensor& values;
  std::uint64_t rows() const { return indptr.numel() - 1; }
  std::uint64_t begin(std::uint64_t r) const { return static_cast<std::uint64_t>(indptr.load_i64(r)); }
  std::uint64_t end(std::uint64_t r) const { return static_cast<std::uint64_t>(indptr.load_i64(r + 1)); }
  std::uint64_t col(std::uint64_t p) const { return static_cast<std::uint64_t>(indices.load_i64(p)); }
};

// Canonical CSR: indptr[0] = 0, indptr non-decreasing, indptr[M] = nnz, every column index
// in [0, K), and column indices strictly increasing within each row (sorted, no
// duplicates). Returns an empty string when valid, else a message naming the first fault.
std::string validate_csr(const CsrView& a, std::uint64_t K);

}  // namespace rung::ops
