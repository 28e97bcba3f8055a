// The public Tensor over the library's HostTensor: copies walk any strides; borrows adopt the
// caller's bytes without a copy (ops::HostTensor::adopt).
#include <cstring>
#include <limits>

#include "api/impl.h"
#include "ir/graph/dtype.h"
#include "runtime/npy.h"
#include "runtime/numpy_repr.h"
#include "runtime/tensor_hash.h"

namespace rung {
namespace {

struct Checked {
  ops::Extents shape;
  std::uint64_t bytes = 0;
  std::uint64_t elem = 0;  // bytes per element (0 for block formats)
};

// M0007 / M0008 / M0009 for what a view must satisfy before its bytes are touched.
std::optional<Checked> check_view(const TensorView& v, Diagnostics& err) {
  if (!dtype_from_code(static_cast<std::uint8_t>(v.dtype))) {
    err = Diagnostics::error("M0003", "unknown dtype code " + std::to_string(static_cast<int>(v.dtype)));
    return std::nullopt;
  }
  if (v.device.kind != DeviceKind::cpu) {
    err = Diagnostics::error("M0008", "the tensor is in the memory of another device (DLPack device " +
                                          std::to_string(static_cast<int>(v.device.kind)) + "); rung takes host memory");
    return std::nullopt;
  }
  Checked c;
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] < 0) {
      err = Diagnostics::error("M0007", "extent " + std::to_string(i) + " is negative (" + std::to_string(v.shape[i]) + ")");
      return std::nullopt;
    }
    c.shape.push_back(static_cast<std::uint64_t>(v.shape[i]));
  }
  auto n = ops::HostTensor::checked_bytes(v.dtype, c.shape);
  if (!n || *n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    err = Diagnostics::error("M0007", "the tensor's byte size is not representable (or a block dtype's count is not a multiple of 32)");
    return std::nullopt;
  }
  c.bytes = *n;
  const DTypeInfo& info = dtype_info(v.dtype);
  c.elem = info.block_elems == 1 ? info.block_bytes : 0;
  if (c.bytes > 0 && v.data == nullptr) {
    err = Diagnostics::error("M0007", "null data for a tensor of " + std::to_string(c.bytes) + " bytes");
    return std::nullopt;
  }
  if (!v.strides.empty() && v.strides.size() != v.shape.size()) {
    err = Diagnostics::error("M0007", "rank " + std::to_string(v.shape.size()) + " with " + std::to_string(v.strides.size()) + " strides");
    return std::nullopt;
  }
  return c;
}

// Compact row-major: no strides, or strides equal to the row-major ones (any stride of an
// extent-1 or empty dimension is fine).
bool compact(const TensorView& v) {
  if (v.strides.empty()) return true;
  std::int64_t want = 1;
  bool empty = false;
  for (auto e : v.shape) empty |= e == 0;
  if (empty) return true;
  for (std::size_t i = v.shape.size(); i-- > 0;) {
    if (v.shape[i] != 1 && v.strides[i] != want) return false;
    want *= v.shape[i];
  }
  return true;
}

}  // namespace


Tensor::Tensor() : impl_(std::make_shared<const Impl>()) {}
Tensor::Tensor(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Tensor::~Tensor() = default;
Tensor::Tensor(const Tensor&) = default;
Tensor& Tensor::operator=(const Tensor&) = default;
Tensor::Tensor(Tensor&&) noexcept = default;
Tensor& Tensor::operator=(Tensor&&) noexcept = default;

namespace api {
Tensor wrap(ops::HostTensor t, bool borrowed) {
  auto impl = std::make_shared<Tensor::Impl>();
  for (auto e : t.shape()) impl->shape.push_back(static_cast<std::int64_t>(e));
  impl->host = std::move(t);
  impl->borrowed = borrowed;
  return Tensor(std::move(impl));
}
}  // namespace api

Result<Tensor> Tensor::copy(const TensorView& v) {
  Diagnostics err;
  auto c = check_view(v, err);
  if (!c) return err;
  if (compact(v)) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(c->bytes));
    if (c->bytes) std::memcpy(bytes.data(), v.data, bytes.size());
    return api::wrap(ops::HostTensor(v.dtype, c->shape, std::move(bytes)));
  }
  if (c->elem == 0)
    return Diagnostics::error("M0009", std::string("a strided ") + std::string(dtype_name(v.dtype)) +
                                           " tensor: block-quantized tensors are exchanged compact only");
  auto out = ops::HostTensor::uninitialized(v.dtype, c->shape);
  std::uint8_t* dst = out.bytes().data();
  const auto* src = static_cast<const std::uint8_t*>(v.data);
  std::uint64_t n = out.numel();
  std::size_t rank = v.shape.size();
  std::vector<std::int64_t> idx(rank, 0);
  for (std::uint64_t k = 0; k < n; ++k) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) off += idx[d] * v.strides[d];
    std::memcpy(dst + k * c->elem, src + off * static_cast<std::int64_t>(c->elem), c->elem);
    for (std::size_t d = rank; d-- > 0;) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  Tensor t = api::wrap(std::move(out));
  const_cast<Tensor::Impl&>(t.impl()).copied = true;  // just made, not yet shared
  return t;
}

Result<Tensor> Tensor::borrow(const TensorView& v, Release release) {
  Diagnostics err;
  auto c = check_view(v, err);
  if (!c) {
    if (release) release();  // refused: nothing is kept, so the caller's memory is given back now
    return err;
  }
  if (!compact(v)) {
    if (release) release();
    return Diagnostics::error("M0006", "the tensor is not compact row-major, so it cannot be used in place",
                              {"copy it (Tensor::copy), or pass it with the copy policy `if_needed`"});
  }
  return api::wrap(ops::HostTensor::adopt(v.dtype, c->shape, v.data, static_cast<std::size_t>(c->bytes), std::move(release)), true);
}

Result<Tensor> Tensor::from_bytes(DType dtype, std::vector<std::int64_t> shape, std::vector<std::uint8_t> bytes) {
  TensorView v{dtype, shape, {}, bytes.empty() ? nullptr : bytes.data()};
  Diagnostics err;
  auto c = check_view(v, err);
  if (!c) return err;
  if (c->bytes != bytes.size())
    return Diagnostics::error("M0007", std::to_string(bytes.size()) + " bytes for a tensor of " + std::to_string(c->bytes));
  return api::wrap(ops::HostTensor(dtype, c->shape, std::move(bytes)));
}

Result<Tensor> Tensor::load_npy(const std::string& path) {
  SourceMap sources;
  DiagnosticSink diags;
  auto t = npy::load(path, sources, diags);
  if (!t) return api::diagnostics_of(diags, sources);
  return Result<Tensor>(api::wrap(std::move(*t)), api::diagnostics_of(diags, sources));
}

Status Tensor::save_npy(const std::string& path) const {
  DiagnosticSink diags;
  if (!npy::save(path, impl_->host, diags)) return api::diagnostics_of(diags, SourceMap{});
  return Done{};
}

DType Tensor::dtype() const { return impl_->host.dtype(); }
const std::vector<std::int64_t>& Tensor::shape() const { return impl_->shape; }
std::size_t Tensor::rank() const { return impl_->shape.size(); }
std::uint64_t Tensor::numel() const { return impl_->host.numel(); }
std::uint64_t Tensor::byte_size() const { return impl_->host.bytes().size(); }
const void* Tensor::data() const { return impl_->host.bytes().data(); }
TensorView Tensor::view() const { return {dtype(), impl_->shape, {}, data()}; }
bool Tensor::borrowed() const { return impl_->borrowed && impl_->host.adopted(); }
bool Tensor::same_bits(const Tensor& o) const { return impl_->host.identical(o.impl_->host); }
std::string Tensor::type() const { return impl_->host.type().to_string(); }
std::string Tensor::hash() const { return tensor_hash(impl_->host).hex(); }
std::string Tensor::numpy_repr() const {
  return runtime::numpy_repr(impl_->host).value_or("(" + std::string(dtype_name(dtype())) + " blocks: not printed)");
}

}  // namespace rung
