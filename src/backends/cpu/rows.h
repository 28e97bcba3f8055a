// The CPU backend's walk over broadcasting operands: the output is viewed as rows x len
// after merging adjacent dims that every operand steps through alike, so along a row each
// operand is either contiguous (stride 1) or one repeated element (stride 0). Kernels then
// run a tight (often SIMD) loop per row and spread rows over threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/host_tensor.h"
#include "ops/numerics/half.h"

namespace rung::cpu {

template <std::size_t N> struct Rows {
  std::uint64_t rows = 0, len = 0;
  std::vector<std::uint64_t> outer;                     // collapsed extents of the row index
  std::array<std::vector<std::uint64_t>, N> outer_stride;  // per operand, per outer dim
  std::array<bool, N> contiguous{};                     // stride along a row: 1 (true) or 0

  // Element offset of operand k at the start of row r.
  std::uint64_t offset(std::size_t k, std::uint64_t r) const {
    std::uint64_t off = 0;
    for (std::size_t d = outer.size(); d-- > 0;) {
      off += (r % outer[d]) * outer_stride[k][d];
      r /= outer[d];
    }
    return off;
  }
};

template <std::size_t N> Rows<N> plan_rows(const ops::Extents& out, const std::array<const ops::Extents*, N>& ins) {
  // Per operand strides aligned to the output (0 where it broadcasts).
  std::array<std::vector<std::uint64_t>, N> st;
  for (std::size_t k = 0; k < N; ++k) {
    st[k].assign(out.size(), 0);
    const ops::Extents& in = *ins[k];
    std::uint64_t s = 1;
    for (std::size_t i = 0; i < in.size(); ++i) {
      std::size_t di = in.size() - 1 - i, dout = out.size() - 1 - i;
      st[k][dout] = in[di] == 1 ? 0 : s;
      s *= in[di];
    }
  }
  // Merge dims (dropping extent-1 dims) from the innermost outwards.
  std::vector<std::uint64_t> ext;
  std::array<std::vector<std::uint64_t>, N> cst;
  for (std::size_t d = out.size(); d-- > 0;) {
    if (out[d] == 1) continue;
    bool merge = !ext.empty();
    for (std::size_t k = 0; merge && k < N; ++k) merge = st[k][d] == cst[k].back() * ext.back();
    if (merge) {
      ext.back() *= out[d];
      continue;
    }
    ext.push_back(out[d]);
    for (std::size_t k = 0; k < N; ++k) cst[k].push_back(st[k][d]);
  }
  Rows<N> r;
  std::uint64_t total = ops::element_count(out);
  if (ext.empty()) {  // a single element
    r.rows = total;
    r.len = total ? 1 : 0;
    for (std::size_t k = 0; k < N; ++k) r.contiguous[k] = false;
    if (total) r.outer = {1};
    for (std::size_t k = 0; k < N; ++k) r.outer_stride[k] = {0};
    return r;
  }
  // ext[0] is the innermost merged dim. If some operand has an inner stride other than
  // 0 or 1 (it cannot after merging, but stay safe), rows become single elements.
  bool inner_ok = true;
  for (std::size_t k = 0; k < N; ++k) inner_ok = inner_ok && cst[k][0] <= 1;
  std::size_t first_outer = inner_ok ? 1 : 0;
  r.len = inner_ok ? ext[0] : 1;
  r.rows = r.len ? total / r.len : 0;
  for (std::size_t k = 0; k < N; ++k) r.contiguous[k] = inner_ok && cst[k][0] == 1;
  for (std::size_t i = ext.size(); i-- > first_outer;) {
    r.outer.push_back(ext[i]);
    for (std::size_t k = 0; k < N; ++k) r.outer_stride[k].push_back(cst[k][i]);
  }
  if (r.outer.empty()) {
    r.outer = {1};
    for (std::size_t k = 0; k < N; ++k) r.outer_stride[k] = {0};
  }
  return r;
}

// A resizable row buffer that, unlike std::vector<bool>, holds real `bool`s.
template <typename T> class RowBuf {
 public:
  void resize(std::uint64_t n) {
    if (n > cap_) {
      p_ = std::make_unique<T[]>(n);
      cap_ = n;
    }
  }
  T* data() { return p_.get(); }
  T& operator[](std::uint64_t i) { return p_[i]; }

 private:
  std::unique_ptr<T[]> p_;
  std::uint64_t cap_ = 0;
};

// Compute type T's view of a tensor's elements: pointers straight into the storage when
// it already holds T, else a per-row widened copy (f16/bf16 -> f32, bool bytes -> bool).
template <typename T> bool stored_as(const ops::HostTensor& t) {
  if constexpr (std::is_same_v<T, bool>) return false;
  else if constexpr (std::is_same_v<T, float>) return t.dtype() == DType::f32;
  else return true;
}

template <typename T, typename Buf>
const T* load_row(const ops::HostTensor& t, std::uint64_t off, std::uint64_t n, Buf& buf) {
  if (stored_as<T>(t)) return reinterpret_cast<const T*>(t.bytes().data()) + off;
  buf.resize(n);
  const std::uint8_t* p = t.bytes().data();
  if constexpr (std::is_same_v<T, bool>) {
    for (std::uint64_t i = 0; i < n; ++i) buf[i] = p[off + i] != 0;
  } else if constexpr (std::is_same_v<T, float>) {
    const auto* h = reinterpret_cast<const std::uint16_t*>(p) + off;
    if (t.dtype() == DType::f16)
      for (std::uint64_t i = 0; i < n; ++i) buf[i] = num::f32_from_f16(h[i]);
    else
      for (std::uint64_t i = 0; i < n; ++i) buf[i] = num::f32_from_bf16(h[i]);
  }
  return buf.data();
}

// Where a row of results of compute type T goes: straight into the output, or into `buf`
// and then narrowed by store_row.
template <typename T, typename Buf> T* out_row(ops::HostTensor& t, std::uint64_t off, std::uint64_t n, Buf& buf) {
  if (stored_as<T>(t)) return reinterpret_cast<T*>(t.bytes().data()) + off;
  buf.resize(n);
  return buf.data();
}

template <typename T> void store_row(ops::HostTensor& t, std::uint64_t off, std::uint64_t n, const T* row) {
  if (stored_as<T>(t)) return;
  std::uint8_t* p = t.bytes().data();
  if constexpr (std::is_same_v<T, bool>) {
    for (std::uint64_t i = 0; i < n; ++i) p[off + i] = row[i] ? 1 : 0;
  } else if constexpr (std::is_same_v<T, float>) {
    auto* h = reinterpret_cast<std::uint16_t*>(p) + off;
    if (t.dtype() == DType::f16)
      for (std::uint64_t i = 0; i < n; ++i) h[i] = num::f16_from_f32(row[i]);
    else
      for (std::uint64_t i = 0; i < n; ++i) h[i] = num::bf16_from_f32(row[i]);
  }
}

// Rows per parallel task so that a task holds about `grain` elements.
inline std::uint64_t row_grain(std::uint64_t len, std::uint64_t grain) { return len ? (grain + len - 1) / len : 1; }

}  // namespace rung::cpu
