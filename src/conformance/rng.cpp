#include "conformance/rng.h"

namespace rung::conformance {

Rng Rng::derive(std::uint64_t seed, std::string_view label, std::uint64_t index) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the label, mixed with seed and index
  for (unsigned char ch : label) h = (h ^ ch) * 0x100000001b3ull;
  Rng r(seed ^ h);
  r.next();
  Rng out(r.next() ^ (index * 0xd1342543de82ef95ull));
  out.next();
  return out;
}

}  // namespace rung::conformance
