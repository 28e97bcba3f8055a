// Tensors through the C ABI: borrowed or copied from a description of the caller's memory,
// and exchanged both ways as DLPack (include/rung/dlpack.h), without a copy where the layout
// allows one.
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <utility>

#include "capi/entries.h"
#include "capi/objects.h"

namespace rung::capi {

// The C codes are the public DType's (rung/dtype.h); a new dtype appends to both.
static_assert(RUNG_F32 == static_cast<int>(DType::f32) && RUNG_F16 == static_cast<int>(DType::f16) &&
              RUNG_BF16 == static_cast<int>(DType::bf16) && RUNG_F64 == static_cast<int>(DType::f64) &&
              RUNG_I64 == static_cast<int>(DType::i64) && RUNG_I32 == static_cast<int>(DType::i32) &&
              RUNG_I16 == static_cast<int>(DType::i16) && RUNG_I8 == static_cast<int>(DType::i8) &&
              RUNG_U64 == static_cast<int>(DType::u64) && RUNG_U32 == static_cast<int>(DType::u32) &&
              RUNG_U16 == static_cast<int>(DType::u16) && RUNG_U8 == static_cast<int>(DType::u8) &&
              RUNG_BOOL == static_cast<int>(DType::boolean) && RUNG_Q8_0 == static_cast<int>(DType::q8_0) &&
              RUNG_Q4_0 == static_cast<int>(DType::q4_0),
              "include/rung.h's dtype codes are rung::DType's");

namespace {

constexpr int kLastDType = RUNG_Q4_0;

// DLPack's (code, bits) for each dtype; bits 0: no DLPack form.
struct DLForm {
  RungDType dtype;
  std::uint8_t code, bits;
};
constexpr DLForm kForms[] = {
    {RUNG_F32, RUNG_DL_FLOAT, 32},  {RUNG_F16, RUNG_DL_FLOAT, 16}, {RUNG_BF16, RUNG_DL_BFLOAT, 16},
    {RUNG_F64, RUNG_DL_FLOAT, 64},  {RUNG_I64, RUNG_DL_INT, 64},   {RUNG_I32, RUNG_DL_INT, 32},
    {RUNG_I16, RUNG_DL_INT, 16},    {RUNG_I8, RUNG_DL_INT, 8},     {RUNG_U64, RUNG_DL_UINT, 64},
    {RUNG_U32, RUNG_DL_UINT, 32},   {RUNG_U16, RUNG_DL_UINT, 16},  {RUNG_U8, RUNG_DL_UINT, 8},
    {RUNG_BOOL, RUNG_DL_BOOL, 8},   {RUNG_Q8_0, 0, 0},             {RUNG_Q4_0, 0, 0},
};
static_assert(sizeof kForms / sizeof kForms[0] == kLastDType, "one DLPack form per dtype");

const DLForm* form_of(DType t) {
  for (const DLForm& f : kForms)
    if (f.dtype == static_cast<RungDType>(t) && f.bits) return &f;
  return nullptr;
}

std::optional<DType> dtype_of_dl(const RungDLDataType& t) {
  if (t.lanes != 1) return std::nullopt;
  for (const DLForm& f : kForms)
    if (f.bits && f.code == t.code && f.bits == t.bits) return static_cast<DType>(f.dtype);
  return std::nullopt;
}

// Calls a release callback at most once, from whichever path gets there first: the tensor's
// last reference, a refusal, or an exception on the way.
struct ReleaseOnce {
  std::function<void()> f;
  std::atomic<bool> done{false};
  void operator()() {
    if (f && !done.exchange(true)) f();
  }
};

// The description a C caller gives, checked for what the C++ API cannot see (NULL arrays, a
// negative rank).
struct Described {
  std::vector<std::int64_t> shape, strides;
};
RungStatus* describe(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides, Described& d) {
  if (!dtype_of(dtype))
    return fail(RUNG_INVALID_ARGUMENT, "M0003", "dtype code " + std::to_string(dtype) + " is no rung dtype (RUNG_F32 ... RUNG_Q4_0)");
  if (ndim < 0) return fail(RUNG_INVALID_ARGUMENT, "M0007", "a negative rank (" + std::to_string(ndim) + ")");
  if (ndim > 0 && !shape) return null_argument("shape");
  d.shape.assign(shape, shape + ndim);
  if (strides) d.strides.assign(strides, strides + ndim);
  return nullptr;
}

TensorView view_of(DType dtype, const Described& d, const void* data) {
  TensorView v;
  v.dtype = dtype;
  v.shape = d.shape;
  v.strides = d.strides;
  v.data = data;
  return v;
}

// Compact row-major: no strides, or the row-major ones (any stride of an extent-1 dimension;
// anything when there are no elements). The rule Tensor::borrow applies.
bool compact(const Described& d) {
  if (d.strides.empty()) return true;
  for (auto e : d.shape)
    if (e == 0) return true;
  std::int64_t want = 1;
  for (std::size_t i = d.shape.size(); i-- > 0;) {
    if (d.shape[i] != 1 && d.strides[i] != want) return false;
    if (d.shape[i] > 0 && want > std::numeric_limits<std::int64_t>::max() / d.shape[i]) return false;
    want *= d.shape[i];
  }
  return true;
}

RungStatus* issue_tensor(Tensor t, RungTensor** out) {
  auto obj = std::make_shared<TensorObj>();
  obj->tensor = std::move(t);
  *out = issue<RungTensor>(std::move(obj));
  return nullptr;
}

// --- DLPack export: the managed tensor owns a reference to the tensor and its shape ---

template <typename Managed>
struct Export {
  Tensor tensor;
  std::unique_ptr<std::int64_t[]> shape;
  Managed managed{};
};

template <typename Managed>
void delete_export(Managed* self) {
  delete static_cast<Export<Managed>*>(self->manager_ctx);
}

template <typename Managed>
RungStatus* to_dlpack(const RungTensor* tensor, Managed** out) {
  auto t = lookup<TensorObj>(tensor);
  if (!t) return bad_handle(t.why);
  if (!out) return null_argument("out");
  const Tensor& src = t->tensor;
  const DLForm* form = form_of(src.dtype());
  if (!form)
    return fail(RUNG_NOT_AVAILABLE, "M0009",
                "a " + std::string(dtype_name(src.dtype())) + " tensor has no DLPack form (block-quantized storage)");
  auto e = std::make_unique<Export<Managed>>();
  e->tensor = src;
  std::size_t rank = src.rank();
  e->shape = std::make_unique<std::int64_t[]>(rank ? rank : 1);
  for (std::size_t i = 0; i < rank; ++i) e->shape[i] = src.shape()[i];
  Managed& m = e->managed;
  RungDLTensor& dl = m.dl_tensor;
  dl.data = const_cast<void*>(e->tensor.data());  // read-only: the flag says so where the struct has flags
  dl.device = {RUNG_DL_CPU, 0};
  dl.ndim = static_cast<int32_t>(rank);
  dl.dtype = {form->code, form->bits, 1};
  dl.shape = e->shape.get();
  dl.strides = nullptr;
  dl.byte_offset = 0;
  if constexpr (std::is_same_v<Managed, RungDLManagedTensorVersioned>) {
    m.version = {RUNG_DLPACK_MAJOR_VERSION, RUNG_DLPACK_MINOR_VERSION};
    m.flags = RUNG_DL_FLAG_READ_ONLY;
  }
  m.manager_ctx = e.get();
  m.deleter = &delete_export<Managed>;
  *out = &e.release()->managed;
  return nullptr;
}

// --- DLPack import: the managed tensor is taken over in every case ---

template <typename Managed>
RungStatus* from_dlpack(Managed* managed, RungCopyPolicy copy, RungTensor** out, std::shared_ptr<ReleaseOnce>& once) {
  if (!managed) return null_argument("managed");
  once = std::make_shared<ReleaseOnce>();
  if (managed->deleter) once->f = [managed] { managed->deleter(managed); };
  if constexpr (std::is_same_v<Managed, RungDLManagedTensorVersioned>) {
    if (managed->version.major != RUNG_DLPACK_MAJOR_VERSION)
      return fail(RUNG_NOT_AVAILABLE, "M0009",
                  "DLPack version " + std::to_string(managed->version.major) + "." + std::to_string(managed->version.minor) +
                      ": rung reads major version 1 (only the deleter was called)");
  }
  if (!out) return null_argument("out");
  if (copy != RUNG_COPY_IF_NEEDED && copy != RUNG_COPY_NEVER)
    return fail(RUNG_INVALID_ARGUMENT, "M0007", "copy policy " + std::to_string(copy) + " is neither RUNG_COPY_IF_NEEDED nor RUNG_COPY_NEVER");
  const RungDLTensor& dl = managed->dl_tensor;
  if (dl.device.device_type != RUNG_DL_CPU && dl.device.device_type != RUNG_DL_CUDA_HOST)
    return fail(RUNG_NOT_AVAILABLE, "M0008",
                "the tensor is in the memory of another device (DLPack device " + std::to_string(dl.device.device_type) +
                    "); rung takes host memory");
  auto dtype = dtype_of_dl(dl.dtype);
  if (!dtype)
    return fail(RUNG_INVALID_ARGUMENT, "M0003",
                "DLPack dtype (code " + std::to_string(dl.dtype.code) + ", bits " + std::to_string(dl.dtype.bits) + ", lanes " +
                    std::to_string(dl.dtype.lanes) + ") is no rung dtype");
  Described d;
  if (RungStatus* s = describe(static_cast<RungDType>(*dtype), dl.ndim, dl.shape, dl.strides, d)) return s;
  const void* data = dl.data ? static_cast<const char*>(dl.data) + dl.byte_offset : nullptr;
  TensorView v = view_of(*dtype, d, data);
  if (compact(d)) {
    auto r = Tensor::borrow(v, [once] { (*once)(); });
    if (!r.ok()) return status_of(r.diagnostics());
    return issue_tensor(std::move(r).value(), out);
  }
  if (copy == RUNG_COPY_NEVER)
    return fail(RUNG_REFUSED, "M0006", "the DLPack tensor is not compact row-major and the copy policy is RUNG_COPY_NEVER",
                {"pass RUNG_COPY_IF_NEEDED to copy it once"});
  auto r = Tensor::copy(v);
  (*once)();  // the copy is rung's: the producer's memory is given back now
  if (!r.ok()) return status_of(r.diagnostics());
  return issue_tensor(std::move(r).value(), out);
}

template <typename Managed>
RungStatus* consume(Managed* managed, RungCopyPolicy copy, RungTensor** out) noexcept {
  std::shared_ptr<ReleaseOnce> once;
  RungStatus* s = guard([&]() -> RungStatus* { return from_dlpack(managed, copy, out, once); });
  if (s) {
    if (once) (*once)();
    else if (managed && managed->deleter) managed->deleter(managed);  // out of memory before the guard was made
  }
  return s;
}

}  // namespace

std::optional<DType> dtype_of(RungDType code) {
  if (code < 1 || code > kLastDType) return std::nullopt;
  return static_cast<DType>(code);
}

RungStatus* TensorCreateBorrowed(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                                 const void* data, RungReleaseCallback release, void* context, RungTensor** out) noexcept {
  std::shared_ptr<ReleaseOnce> once;
  RungStatus* s = guard([&]() -> RungStatus* {
    once = std::make_shared<ReleaseOnce>();
    if (release) once->f = [release, context] { release(context); };
    if (!out) return null_argument("out");
    Described d;
    if (RungStatus* e = describe(dtype, ndim, shape, strides, d)) return e;
    auto r = Tensor::borrow(view_of(*dtype_of(dtype), d, data), [once] { (*once)(); });
    if (!r.ok()) return status_of(r.diagnostics());
    return issue_tensor(std::move(r).value(), out);
  });
  if (s) {
    if (once) (*once)();
    else if (release) release(context);
  }
  return s;
}

RungStatus* TensorCreateCopy(RungDType dtype, int32_t ndim, const int64_t* shape, const int64_t* strides,
                             const void* data, RungTensor** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!out) return null_argument("out");
    Described d;
    if (RungStatus* e = describe(dtype, ndim, shape, strides, d)) return e;
    auto r = Tensor::copy(view_of(*dtype_of(dtype), d, data));
    if (!r.ok()) return status_of(r.diagnostics());
    return issue_tensor(std::move(r).value(), out);
  });
}

#define RUNG_TENSOR_GET(NAME, TYPE, EXPR)                               \
  RungStatus* NAME(const RungTensor* tensor, TYPE* out) noexcept {      \
    return guard([&]() -> RungStatus* {                                 \
      auto t = lookup<TensorObj>(tensor);                               \
      if (!t) return bad_handle(t.why);                                 \
      if (!out) return null_argument("out");                            \
      const Tensor& x = t->tensor;                                      \
      *out = EXPR;                                                      \
      return nullptr;                                                   \
    });                                                                 \
  }
RUNG_TENSOR_GET(TensorDType, RungDType, static_cast<RungDType>(x.dtype()))
RUNG_TENSOR_GET(TensorNDim, int32_t, static_cast<int32_t>(x.rank()))
RUNG_TENSOR_GET(TensorShape, const int64_t*, x.shape().data())
RUNG_TENSOR_GET(TensorData, const void*, x.data())
RUNG_TENSOR_GET(TensorByteSize, uint64_t, x.byte_size())
RUNG_TENSOR_GET(TensorIsBorrowed, int32_t, x.borrowed() ? 1 : 0)
#undef RUNG_TENSOR_GET

RungStatus* TensorHash(const RungTensor* tensor, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    auto t = lookup<TensorObj>(tensor);
    if (!t) return bad_handle(t.why);
    if (!out) return null_argument("out");
    std::call_once(t->hash_once, [&] { t->hash = t->tensor.hash(); });
    *out = t->hash.c_str();
    return nullptr;
  });
}

RungStatus* TensorToDLPack(const RungTensor* tensor, RungDLManagedTensorVersioned** out) noexcept {
  return guard([&] { return to_dlpack(tensor, out); });
}

RungStatus* TensorToDLPackLegacy(const RungTensor* tensor, RungDLManagedTensor** out) noexcept {
  return guard([&] { return to_dlpack(tensor, out); });
}

RungStatus* TensorFromDLPack(RungDLManagedTensorVersioned* managed, RungCopyPolicy copy, RungTensor** out) noexcept {
  return consume(managed, copy, out);
}

RungStatus* TensorFromDLPackLegacy(RungDLManagedTensor* managed, RungCopyPolicy copy, RungTensor** out) noexcept {
  return consume(managed, copy, out);
}

void ReleaseTensor(RungTensor* tensor) noexcept { release<TensorObj>(tensor); }

RungStatus* DTypeName(RungDType dtype, const char** out) noexcept {
  return guard([&]() -> RungStatus* {
    if (!out) return null_argument("out");
    auto t = dtype_of(dtype);
    if (!t) return fail(RUNG_INVALID_ARGUMENT, "M0003", "dtype code " + std::to_string(dtype) + " is no rung dtype");
    static const std::vector<std::string> names = [] {
      std::vector<std::string> v(kLastDType + 1);
      for (int c = 1; c <= kLastDType; ++c) v[c] = std::string(dtype_name(static_cast<DType>(c)));
      return v;
    }();
    *out = names[static_cast<std::size_t>(dtype)].c_str();
    return nullptr;
  });
}

}  // namespace rung::capi
