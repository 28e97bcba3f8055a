#include "onnx/tensor_data.h"

#include <cstring>

#include "onnx/dtypes.h"
#include "onnx/place.h"

namespace rung::onnx_import {
namespace {

template <typename Field>
std::uint64_t count_of(const Field& f) {
  return static_cast<std::uint64_t>(f.size());
}

// Whether `v` fits the integer dtype `dt` (int32_data carries the narrow types).
bool fits(DType dt, std::int64_t v) {
  switch (dt) {
    case DType::i8: return v >= -128 && v <= 127;
    case DType::u8: return v >= 0 && v <= 255;
    case DType::i16: return v >= -32768 && v <= 32767;
    case DType::u16: case DType::f16: case DType::bf16: return v >= 0 && v <= 65535;
    case DType::boolean: return v == 0 || v == 1;
    default: return true;
  }
}

}  // namespace

std::optional<ops::HostTensor> TensorReader::read(const ::onnx::TensorProto& t, const std::string& place) {
  auto dt = dtype_of(t.data_type());
  if (!dt) {
    diags_.error("I0007", place + ": element type " + onnx_type_name(t.data_type()) + " is not supported")
        .note("rung tensors hold FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8..INT64, UINT8..UINT64 and BOOL");
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(t.dims_size()) > limits_.max_rank) {
    diags_.error("I0002", place + ": rank " + std::to_string(t.dims_size()) + " is over the limit of " + std::to_string(limits_.max_rank));
    return std::nullopt;
  }
  ops::Extents shape;
  for (int i = 0; i < t.dims_size(); ++i) {
    if (t.dims(i) < 0) {
      diags_.error("I0006", place + ": dim " + std::to_string(i) + " is " + std::to_string(t.dims(i)) + " (negative)");
      return std::nullopt;
    }
    shape.push_back(static_cast<std::uint64_t>(t.dims(i)));
  }
  auto bytes = ops::HostTensor::checked_bytes(*dt, shape);
  if (!bytes) {
    diags_.error("I0006", place + ": the dims' element count overflows 64 bits");
    return std::nullopt;
  }
  if (t.has_segment()) {
    diags_.error("I0005", place + ": segmented tensors are not supported");
    return std::nullopt;
  }
  if (*bytes > limits_.max_weight_bytes - weight_bytes_) {
    diags_.error("I0014", place + ": " + std::to_string(*bytes) + " bytes bring the weights over the budget of " +
                              std::to_string(limits_.max_weight_bytes) + " bytes")
        .note("raise the budget with --max-weights BYTES");
    return std::nullopt;
  }
  std::uint64_t numel = 1;
  for (auto e : shape) numel *= e;  // bytes fit, so the count does
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    if (t.has_raw_data() || !t.float_data().empty() || !t.int32_data().empty() || !t.int64_data().empty() ||
        !t.double_data().empty() || !t.uint64_data().empty()) {
      diags_.error("I0006", place + ": external data, yet the tensor holds data of its own too");
      return std::nullopt;
    }
    std::vector<std::pair<std::string, std::string>> entries;
    for (const auto& e : t.external_data()) entries.emplace_back(e.key(), e.value());
    auto data = files_.read(entries, *bytes, place, diags_);
    if (!data) return std::nullopt;
    weight_bytes_ += *bytes;
    return ops::HostTensor(*dt, std::move(shape), std::move(*data));
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != *bytes) {
      diags_.error("I0006", place + ": raw_data holds " + std::to_string(t.raw_data().size()) + " bytes, the dims " +
                                std::to_string(*bytes));
      return std::nullopt;
    }
    weight_bytes_ += *bytes;
    std::vector<std::uint8_t> data(t.raw_data().begin(), t.raw_data().end());
    return ops::HostTensor(*dt, std::move(shape), std::move(data));
  }
  auto out = typed_data(t, *dt, std::move(shape), numel, place);
  if (out) weight_bytes_ += *bytes;
  return out;
}

// The typed fields: f32 float_data; f64 double_data; i64 int64_data; u32, u64 uint64_data;
// every narrower type (f16 and bf16 as bit patterns, bool) int32_data. Exactly one field
// holds all the elements.
std::optional<ops::HostTensor> TensorReader::typed_data(const ::onnx::TensorProto& t, DType dt, ops::Extents shape,
                                                        std::uint64_t n, const std::string& place) {
  std::uint64_t given = count_of(t.float_data()) + count_of(t.double_data()) + count_of(t.int32_data()) +
                        count_of(t.int64_data()) + count_of(t.uint64_data());
  std::uint64_t right = 0;
  const char* field = "int32_data";
  switch (dt) {
    case DType::f32: right = count_of(t.float_data()), field = "float_data"; break;
    case DType::f64: right = count_of(t.double_data()), field = "double_data"; break;
    case DType::i64: right = count_of(t.int64_data()), field = "int64_data"; break;
    case DType::u32: case DType::u64: right = count_of(t.uint64_data()), field = "uint64_data"; break;
    default: right = count_of(t.int32_data()); break;
  }
  if (given != right || right != n) {
    diags_.error("I0006", place + ": the dims hold " + std::to_string(n) + " elements, the data " + std::to_string(given) +
                              (given == right ? "" : std::string(" (not all in ") + field + ")"));
    return std::nullopt;
  }
  // Allocated only now: the count is bounded by the protobuf bytes.
  ops::HostTensor out = ops::HostTensor::uninitialized(dt, std::move(shape));
  auto bytes = out.bytes();
  for (std::uint64_t i = 0; i < n; ++i) {
    int k = static_cast<int>(i);
    switch (dt) {
      case DType::f32: { float v = t.float_data(k); std::memcpy(&bytes[i * 4], &v, 4); break; }
      case DType::f64: { double v = t.double_data(k); std::memcpy(&bytes[i * 8], &v, 8); break; }
      case DType::i64: out.store_int(i, static_cast<std::uint64_t>(t.int64_data(k))); break;
      case DType::u32:
        if (t.uint64_data(k) > UINT32_MAX) {
          diags_.error("I0006", place + ": element " + std::to_string(i) + " does not fit UINT32");
          return std::nullopt;
        }
        out.store_int(i, t.uint64_data(k));
        break;
      case DType::u64: out.store_int(i, t.uint64_data(k)); break;
      case DType::f16: case DType::bf16: {
        std::int32_t v = t.int32_data(k);
        if (!fits(dt, v)) {
          diags_.error("I0006", place + ": element " + std::to_string(i) + " (" + std::to_string(v) + ") is not a 16-bit pattern");
          return std::nullopt;
        }
        std::uint16_t bits = static_cast<std::uint16_t>(v);
        std::memcpy(&bytes[i * 2], &bits, 2);
        break;
      }
      default: {
        std::int32_t v = t.int32_data(k);
        if (!fits(dt, v)) {
          diags_.error("I0006", place + ": element " + std::to_string(i) + " (" + std::to_string(v) + ") does not fit " +
                                    std::string(dtype_name(dt)));
          return std::nullopt;
        }
        if (dt == DType::boolean) bytes[i] = static_cast<std::uint8_t>(v);
        else out.store_int(i, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
      }
    }
  }
  return out;
}

}  // namespace rung::onnx_import
