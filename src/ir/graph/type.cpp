#include "ir/graph/type.h"

#include "base/check.h"
#include "ir/graph/domain.h"

namespace rung {

std::string_view memspace_name(MemSpace m) {
  switch (m) {
    case MemSpace::host: return "host";
    case MemSpace::device: return "device";
    case MemSpace::pinned: return "pinned";
    case MemSpace::unified: return "unified";
  }
  RUNG_UNREACHABLE("invalid MemSpace");
}

std::optional<MemSpace> memspace_from_name(std::string_view name) {
  for (std::uint8_t c = 0; c <= 3; ++c)
    if (memspace_name(static_cast<MemSpace>(c)) == name) return static_cast<MemSpace>(c);
  return std::nullopt;
}

std::optional<MemSpace> memspace_from_code(std::uint8_t code) {
  if (code > 3) return std::nullopt;
  return static_cast<MemSpace>(code);
}

std::uint64_t Dim::extent() const {
  RUNG_CHECK(is_static(), "extent() of a symbolic dim");
  return extent_;
}

const std::string& Dim::name() const {
  RUNG_CHECK(!is_static(), "name() of a static dim");
  return symbol_;
}

bool TensorType::is_static() const {
  for (const auto& d : shape)
    if (!d.is_static()) return false;
  return true;
}

std::optional<std::uint64_t> TensorType::element_count() const {
  std::uint64_t n = 1;
  for (const auto& d : shape) {
    if (!d.is_static()) return std::nullopt;
    std::uint64_t e = d.extent();
    if (e != 0 && n > UINT64_MAX / e) return std::nullopt;
    n *= e;
  }
  return n;
}

std::optional<std::uint64_t> TensorType::byte_size() const {
  auto n = element_count();
  if (!n) return std::nullopt;
  return storage_bytes(dtype, *n);
}

void TensorType::encode(CanonicalWriter& w) const {
  w.u8(static_cast<std::uint8_t>(dtype));
  w.u8(static_cast<std::uint8_t>(space));
  encode_shape(shape, w);
}

void encode_shape(const Shape& s, CanonicalWriter& w) {
  w.u32(static_cast<std::uint32_t>(s.size()));
  for (const auto& d : s) {
    if (d.is_static()) {
      w.u8(0);
      w.u64(d.extent());
    } else {
      w.u8(1);
      w.str(d.name());
    }
  }
}

Hash256 TensorType::type_id() const {
  CanonicalWriter w;
  w.raw(domain::kType);
  encode(w);
  return sha3_256(w.data());
}

std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].to_string();
  return out + "]";
}

std::string TensorType::to_string() const {
  std::string out(dtype_name(dtype));
  if (!shape.empty()) out += shape_to_string(shape);
  if (space != MemSpace::host) out += " @" + std::string(memspace_name(space));
  return out;
}

TensorType tensor(DType dt, std::initializer_list<Dim> dims, MemSpace space) {
  return TensorType{dt, Shape(dims), space};
}

}  // namespace rung
