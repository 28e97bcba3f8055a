// The headers a generated module is compiled with, embedded in rung when it is built
// (embed_headers.cmake): backends/wasm/kernels/*.h, their freestanding shims and
// ops/numerics/*.h, so `rung build --target wasm` needs no source tree, and the module is
// compiled from the very headers rung's own kernels were.
#pragma once

#include <string_view>
#include <vector>

namespace rung::wasm {

struct EmbeddedHeader {
  std::string_view path;  // relative to the include root ("ops/numerics/ieee.h")
  std::string_view text;
};

const std::vector<EmbeddedHeader>& embedded_headers();

}  // namespace rung::wasm
