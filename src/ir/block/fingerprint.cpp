#include "ir/block/fingerprint.h"

#include "base/canonical.h"

namespace rung::block {

Hash256 program_fingerprint(const Hash256& graph_fingerprint, const Hash256& blockir_hash) {
  CanonicalWriter w;
  w.raw(std::string_view("rung/program\0", 13));
  w.hash(graph_fingerprint);
  w.hash(blockir_hash);
  return sha3_256(w.data());
}

}  // namespace rung::block
