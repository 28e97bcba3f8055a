// libFuzzer target for the .npy reader (`make fuzz TARGET=npy`). An array the reader accepts
// must write back (npy::serialize) to bytes that read as the same tensor, bit for bit.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_check.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rung::SourceMap sources;
  rung::SourceId id = sources.add("fuzz.npy", std::string(reinterpret_cast<const char*>(data), size), /*binary=*/true);
  rung::DiagnosticSink diags;
  if (auto t = rung::npy::parse(sources.get(id).text(), id, diags)) {
    rung::DiagnosticSink again;
    auto bytes = rung::npy::serialize(*t, again);
    if (!bytes) std::abort();
    rung::SourceId id2 = sources.add("again.npy", std::string(bytes->begin(), bytes->end()), true);
    auto back = rung::npy::parse(sources.get(id2).text(), id2, again);
    if (!back || !back->identical(*t)) std::abort();
  }
  rung::fuzz::check_diagnostics(diags, sources);
  return 0;
}
