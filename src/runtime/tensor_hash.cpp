#include "runtime/tensor_hash.h"

#include "base/canonical.h"

namespace rung {

Hash256 tensor_hash(const ops::HostTensor& t) {
  ops::HostTensor canon = t;
  canon.canonicalize_nans();
  CanonicalWriter w;
  w.raw(std::string_view("rung/tensor\0", 12));
  w.u8(static_cast<std::uint8_t>(canon.dtype()));
  w.u32(static_cast<std::uint32_t>(canon.rank()));
  for (auto e : canon.shape()) w.u64(e);
  Sha3_256 h;
  h.update(w.data());
  h.update(canon.bytes());
  return h.finish();
}

}  // namespace rung
