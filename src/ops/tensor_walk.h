// Small helpers the data-movement kernels (shape, NN, sparse, random families) share:
// byte-level element copies, row-major strides, index loading with range checks, and
// static extents from a shape attribute.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ops/host_tensor.h"

namespace rung::ops {

// Bytes per element of a plain (non-quantized) dtype.
inline std::uint64_t elem_size(DType t) { return dtype_info(t).block_bytes; }

// Copies `count` consecutive elements; src and dst share a plain dtype.
inline void copy_elems(const HostTensor& src, std::uint64_t si, HostTensor& dst, std::uint64_t di,
                       std::uint64_t count = 1) {
  std::uint64_t w = elem_size(src.dtype());
  if (count) std::memcpy(dst.bytes().data() + di * w, src.bytes().data() + si * w, count * w);
}

inline std::vector<std::uint64_t> row_major_strides(const Extents& shape) {
  std::vector<std::uint64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// Product of extents [begin, end).
inline std::uint64_t extent_product(const Extents& shape, std::size_t begin, std::size_t end) {
  std::uint64_t n = 1;
  for (std::size_t d = begin; d < end; ++d) n *= shape[d];
  return n;
}

// Calls fn(linear, idx) for every multi-index of `shape` in row-major order.
template <typename Fn> void for_each_index(const Extents& shape, Fn&& fn) {
  std::uint64_t n = element_count(shape);
  std::vector<std::uint64_t> idx(shape.size(), 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    fn(i, static_cast<const std::vector<std::uint64_t>&>(idx));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Index element i of an integer tensor as an unsigned value; nullopt if it is negative.
inline std::optional<std::uint64_t> load_index(const HostTensor& t, std::uint64_t i) {
  if (dtype_info(t.dtype()).is_signed) {
    std::int64_t v = t.load_i64(i);
    if (v < 0) return std::nullopt;
    return static_cast<std::uint64_t>(v);
  }
  return t.load_u64(i);
}

// The value of index element i as text for error messages (negative values included).
inline std::string index_text(const HostTensor& t, std::uint64_t i) {
  return dtype_info(t.dtype()).is_signed ? std::to_string(t.load_i64(i)) : std::to_string(t.load_u64(i));
}

// Loads index i and checks 0 <= v < bound; on failure writes a message naming `what`, the
// position and the bound, and returns nullopt.
inline std::optional<std::uint64_t> checked_index(const HostTensor& t, std::uint64_t i, std::uint64_t bound,
                                                  const std::string& what, std::string& error) {
  auto v = load_index(t, i);
  if (v && *v < bound) return v;
  error = what + " " + index_text(t, i) + " at position " + std::to_string(i) + " is out of range [0, " +
          std::to_string(bound) + ")";
  return std::nullopt;
}

// A shape attribute's extents, or nullopt (with a message) when a dim is symbolic.
inline std::optional<Extents> static_extents(const Shape& s, std::string& error) {
  Extents e;
  for (const auto& d : s) {
    if (!d.is_static()) {
      error = "shape " + shape_to_string(s) + " has symbolic dims; bind them before evaluating";
      return std::nullopt;
    }
    e.push_back(d.extent());
  }
  return e;
}

}  // namespace rung::ops
